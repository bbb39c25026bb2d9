/**
 * Token material never reaches a log line in any encoding (issue 30, finding 6: a percent-encoded token in
 * a URL was logged in full). Requests carry runtime tokens, user tokens and join codes in paths, queries
 * and malformed URLs, percent-encoded in every way a client might (separators only, every character, mixed
 * case, twice over); the captured lines are then decoded as far as they go, and no 16 hex digits of any
 * secret may remain. A table of spellings checks the scrubber itself, the JSON `\u00XX` escapes included.
 */
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/http/logger.js";
import { scrubSecrets } from "../../src/http/secret-scrub.js";
import { makeWorld } from "../helpers/world.js";

const pct = (ch: string, upper = true) => {
  const h = ch.charCodeAt(0).toString(16);
  return `%${upper ? h.toUpperCase() : h}`;
};
/** The spellings of one secret a client might put in a URL. */
function spellings(secret: string): string[] {
  const prefixEnd = secret.lastIndexOf("_") + 1;
  const prefix = secret.slice(0, prefixEnd);
  const hex = secret.slice(prefixEnd);
  return [
    secret,
    secret.replaceAll("_", "%5F"),
    secret.replaceAll("_", "%5f").replace("c", "%63"),
    prefix.toUpperCase() + hex.toUpperCase(),
    [...secret].map((c) => pct(c)).join(""),
    [...secret].map((c, i) => (i % 2 ? pct(c, false) : c)).join(""),
    secret.replaceAll("_", "%255F"),
    `${[...prefix].map((c) => pct(c)).join("")}${hex.slice(0, 10)}${[...hex.slice(10)].map((c) => pct(c)).join("")}`,
  ];
}

/** Decodes %XX (repeatedly) and \u00XX escapes, the way a reader of the log could. */
function decodeFully(text: string): string {
  let out = text;
  for (let i = 0; i < 4; i++)
    out = out
      .replace(/%([0-9a-f]{2})/gi, (_m, h: string) => String.fromCharCode(Number.parseInt(h, 16)))
      .replace(/\\{1,2}u00([0-9a-f]{2})/gi, (_m, h: string) => String.fromCharCode(Number.parseInt(h, 16)));
  return out.toLowerCase();
}

function expectNoSecret(log: string, secrets: string[]) {
  const decoded = decodeFully(log);
  for (const s of secrets) {
    const hex = s.slice(s.lastIndexOf("_") + 1);
    for (let i = 0; i + 16 <= hex.length; i += 8) expect(decoded).not.toContain(hex.slice(i, i + 16));
  }
}

describe("scrubSecrets", () => {
  const token = `cm_agent_${"0123456789abcdef".repeat(4)}`;
  it.each([
    ...spellings(token).map((s) => [s]),
    [token.replaceAll("_", "\\u005f")],
    [token.replaceAll("_", "\\\\u005F")],
    [`cm_user_${"a1".repeat(32)}`],
    [`cm%5Fjoin%5F${"f0".repeat(16)}`],
  ])("redacts %s", (spelled) => {
    const line = `{"msg":"incoming request","req":{"url":"/x/${spelled}/y?q=${spelled}"}}`;
    const out = scrubSecrets(line);
    expect(out).toContain("[REDACTED]");
    expectNoSecret(out, [token, `cm_user_${"a1".repeat(32)}`, `cm_join_${"f0".repeat(16)}`]);
    expect(out.startsWith('{"msg":"incoming request","req":{"url":"/x/')).toBe(true);
  });

  it("leaves lines without secrets as they are, percent escapes and all", () => {
    const line = '{"url":"/api/pods/pod_0123456789abcdef01234567%20x?limit=5&q=cm_agent_short"}';
    expect(scrubSecrets(line)).toBe(line);
  });
});

describe("the kernel's log", () => {
  it("holds no token, user token or join code sent in any spelling in paths, queries and bad URLs", async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _enc, cb) {
        lines.push(chunk.toString());
        cb();
      },
    });
    const w = await makeWorld({ logger: createLogger({ level: "trace", stream }) });
    const code = (await w.adminApi("POST", `/pods/${w.podA.id}/join-codes`, { agentName: "j" })).json().code;
    const secrets = [w.alpha.token, w.adminToken, code];
    for (const secret of secrets)
      for (const s of spellings(secret)) {
        await w.req({ url: `/api/agents/runtime/pods/${s}/messages?token=${s}`, token: w.alpha.token });
        await w.req({ url: `/api/pods/${s}?api_key=${s}`, token: w.adminToken });
        await w.req({ method: "POST", url: `/api/agents/runtime/events/${s}%zz/ack`, token: w.alpha.token });
        await w.req({ url: `/nowhere/${s}`, token: null });
      }
    await w.app.close();
    const log = lines.join("");
    expect(lines.length).toBeGreaterThan(100);
    expect(log).toContain("[REDACTED]");
    expectNoSecret(log, secrets);
  });
});
