/**
 * Every limit of config.ts has a `serve` flag and a CAP_* variable (limit-flags.ts), documented in the
 * README's Limits table with its default, listed by `serve --help`, and applied by the kernel process
 * (seen in `/info` and in what it refuses).
 */
import { mkdtempSync, readFileSync } from "node:fs";
import type { Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { LIMIT_FLAGS } from "../../src/cli/limit-flags.js";
import { resolveServe } from "../../src/cli/settings.js";
import { DEFAULT_CONFIG } from "../../src/config.js";
import { cli, type KernelProcess, startKernel } from "../helpers/process.js";
import { eventually } from "../helpers/world.js";
import { openSocket } from "../security/sockets.js";

const readme = readFileSync(join(import.meta.dirname, "..", "..", "README.md"), "utf8");

describe("limit flags", () => {
  let k: KernelProcess | undefined;
  const sockets: Socket[] = [];
  afterEach(() => {
    for (const s of sockets.splice(0)) s.destroy();
    k?.proc.kill("SIGKILL");
    k = undefined;
  });

  it("name one flag and one variable for each limit in config.ts", () => {
    expect(LIMIT_FLAGS.map((l) => l.name).sort()).toEqual(Object.keys(DEFAULT_CONFIG.limits).sort());
    const max = LIMIT_FLAGS.find((l) => l.name === "maxConnectionsPerClient");
    expect([max?.flag, max?.env]).toEqual(["--max-connections-per-client", "CAP_MAX_CONNECTIONS_PER_CLIENT"]);
  });

  it("are documented in the README's Limits table with the kernel's defaults", () => {
    const section = readme.slice(
      readme.indexOf("## Limits"),
      readme.indexOf("\n## ", readme.indexOf("## Limits") + 1),
    );
    const rows = new Map(
      section
        .split("\n")
        .filter((line) => line.startsWith("| `"))
        .map((line) => {
          const [name, value, flag] = line
            .split("|")
            .slice(1, 4)
            .map((c) => c.trim());
          return [name!.replace(/`/g, ""), { value: Number(value!.replace(/,/g, "")), flag: flag! }];
        }),
    );
    expect([...rows.keys()].sort()).toEqual(LIMIT_FLAGS.map((l) => l.name).sort());
    for (const l of LIMIT_FLAGS) {
      expect(rows.get(l.name)?.value, l.name).toBe(l.default);
      expect(rows.get(l.name)?.flag, l.name).toBe(`\`${l.flag}\` (\`${l.env}\`)`);
    }
  });

  it("take a flag over its variable, leave unset limits to the kernel, and refuse what is not a whole number from 1 to 2³¹−1", () => {
    const names = ["CAP_MESSAGES_PER_MINUTE", "CAP_MAX_LONG_POLLS_PER_TOKEN", "CAP_HEADERS_TIMEOUT_MS"];
    const saved = names.map((n) => process.env[n]);
    try {
      process.env.CAP_MESSAGES_PER_MINUTE = "600";
      process.env.CAP_MAX_LONG_POLLS_PER_TOKEN = "16";
      expect(resolveServe({ maxLongPollsPerToken: "32" }).limits).toEqual({
        messagesPerMinute: 600,
        maxLongPollsPerToken: 32,
      });
      expect(() => resolveServe({ maxConnectionsPerClient: "0" })).toThrow(/--max-connections-per-client/);
      expect(() => resolveServe({ messageBytesPerMinute: "2147483648" })).toThrow(
        /--message-bytes-per-minute/,
      );
      process.env.CAP_HEADERS_TIMEOUT_MS = "1.5";
      expect(() => resolveServe({})).toThrow(/CAP_HEADERS_TIMEOUT_MS/);
    } finally {
      names.forEach((n, i) => {
        if (saved[i] === undefined) delete process.env[n];
        else process.env[n] = saved[i];
      });
    }
  });

  it("are listed by serve --help", async () => {
    const help = await cli(["serve", "--help"]);
    for (const l of LIMIT_FLAGS) expect(help).toContain(`${l.flag} <n>`);
  });

  it("reach the kernel process: /info advertises them and the kernel enforces them", async () => {
    const db = `sqlite:${join(mkdtempSync(join(tmpdir(), "cap-limits-")), "k.db")}`;
    const fx = JSON.parse(
      await cli(["provision", "--for-conformance", "--db", db, "--base-url", "http://x"]),
    );
    const token = fx.agents[0].token as string;
    k = await startKernel(["--db", db, "--max-long-polls-per-token", "1"], { CAP_MESSAGES_PER_MINUTE: "2" });
    const info = await (
      await fetch(`${k.url}/api/agents/runtime/info`, {
        headers: { authorization: `Bearer ${token}` },
      })
    ).json();
    expect(info.limits).toMatchObject({ maxLongPollsPerToken: 1, messagesPerMinute: 2 });
    const post = (content: string) =>
      fetch(`${k!.url}/api/agents/runtime/pods/${fx.agents[0].podId}/messages`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ content }),
      });
    expect([(await post("one")).status, (await post("two")).status, (await post("three")).status]).toEqual([
      201, 201, 429,
    ]);
  });

  it("--max-connections caps the connections of all clients together", async () => {
    const db = `sqlite:${join(mkdtempSync(join(tmpdir(), "cap-limits-")), "k.db")}`;
    await cli(["provision", "--db", db, "--admin", "ops"]);
    k = await startKernel(["--db", db, "--max-connections", "3"]);
    const port = Number(new URL(k.url).port);
    const held = [
      await openSocket(port, "127.0.0.1", sockets),
      await openSocket(port, "127.0.0.2", sockets),
      await openSocket(port, "127.0.0.2", sockets),
    ];
    // Node closes the connection over the cap at once, before any request.
    const over = await openSocket(port, "127.0.0.3", sockets);
    await over.closed;
    expect(over.received()).toBe("");
    held[0]!.socket.destroy();
    await eventually(
      async () => {
        const s = await openSocket(port, "127.0.0.3", sockets);
        s.socket.write("GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n");
        await Promise.race([s.closed, new Promise((r) => setTimeout(r, 200))]);
        const answer = s.received();
        if (!answer) s.socket.destroy(); // dropped, or not answered yet: try again on a new connection
        return answer;
      },
      (r) => r.startsWith("HTTP/1.1 200 "),
    );
  });
});
