/**
 * Secrets: the database file holds no raw token or join code (only SHA-256 hashes), and the logs never
 * contain one — not in request logs, not in error logs, not when a token is sent in the wrong place.
 */
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/http/logger.js";
import { newId, sha256Hex } from "../../src/secrets.js";
import { openSqliteStore } from "../../src/store/sqlite/index.js";
import { makeWorld } from "../helpers/world.js";

describe("sha256Hex", () => {
  // Given/want: the FIPS 180-2 SHA-256 vectors, and a non-ASCII text hashed as UTF-8 (want from Python's hashlib).
  it.each([
    ["", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"],
    ["abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"],
    ["é", "4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c"],
  ])("hashes %j", (text, want) => {
    expect(sha256Hex(text)).toBe(want);
  });
});

describe("newId", () => {
  it("is the prefix, the creation millisecond and 64 random bits, all lower-case hex", () => {
    const before = Date.now();
    const id = newId("evt");
    const after = Date.now();
    expect(id).toMatch(/^evt_[0-9a-f]{28}$/);
    const at = Number.parseInt(id.slice(4, 16), 16);
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(after);
  });

  it("sorts ids of later milliseconds after earlier ones, and never repeats one", async () => {
    const first = Array.from({ length: 1000 }, () => newId("msg"));
    const start = Date.now();
    while (Date.now() === start) await new Promise((r) => setTimeout(r, 1));
    const later = newId("msg");
    expect(first.every((id) => id < later)).toBe(true);
    expect(new Set(first).size).toBe(first.length);
  });
});

describe("secrets at rest and in logs", () => {
  it("keeps no issued token or join code in the SQLite file, only their hashes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cap-secrets-"));
    const store = openSqliteStore({ path: join(dir, "k.db") });
    const w = await makeWorld({ store });
    const issued = [w.adminToken, w.alpha.token, w.beta.token, w.gamma.token];
    const bob = await w.adminApi("POST", "/users", { name: "bob" });
    issued.push(bob.json().token);
    const code = (await w.adminApi("POST", `/pods/${w.podA.id}/join-codes`, { agentName: "joiner" })).json()
      .code;
    const joined = await w.req({ method: "POST", url: "/api/joins/redeem", body: { code } });
    issued.push(code, joined.json().token);
    await w.cap(w.alpha.token, "PUT", "/memory", { content: "memory" });
    await w.app.close();
    await store.close();
    const bytes = readdirSync(dir)
      .map((f) => readFileSync(join(dir, f)).toString("latin1"))
      .join("\n");
    expect(bytes).toContain(sha256Hex(w.alpha.token));
    for (const secret of issued) {
      expect(secret).toMatch(/^cm_(agent|user|join)_/);
      expect(bytes.includes(secret)).toBe(false);
      expect(bytes.includes(secret.slice(-40))).toBe(false);
    }
  });

  it("never writes a token to the logs", async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _enc, cb) {
        lines.push(chunk.toString());
        cb();
      },
    });
    const w = await makeWorld({ logger: createLogger({ level: "trace", stream }) });
    const tokens = [w.adminToken, w.alpha.token, w.beta.token];
    await w.cap(w.alpha.token, "GET", "/events");
    await w.cap(w.alpha.token, "POST", `/pods/${w.podA.id}/messages`, {
      content: `my token is ${w.alpha.token}`,
    });
    await w.req({
      url: `/api/agents/runtime/info?token=${w.beta.token}`,
      headers: { "x-commonly-agent-token": w.beta.token },
    });
    await w.req({ url: "/api/agents/runtime/info", headers: { authorization: `Basic ${w.alpha.token}` } });
    const issued = await w.adminApi("POST", `/registry/pods/${w.podA.id}/agents/alpha/runtime-tokens`, {});
    tokens.push(issued.json().token);
    const code = (await w.adminApi("POST", `/pods/${w.podA.id}/join-codes`, { agentName: "j" })).json().code;
    await w.req({ method: "POST", url: "/api/joins/redeem", body: { code } });
    tokens.push(code);
    w.app.log.error(
      { token: w.gamma.token, headers: { authorization: `Bearer ${w.gamma.token}` } },
      `oops ${w.gamma.token}`,
    );
    tokens.push(w.gamma.token);
    await w.app.close();
    const log = lines.join("");
    expect(lines.length).toBeGreaterThan(10);
    expect(log).toContain("[REDACTED]");
    for (const t of tokens) expect(log.includes(t)).toBe(false);
    expect(log).not.toMatch(/cm_(agent|user|join)_[0-9a-f]{16}/);
  });
});
