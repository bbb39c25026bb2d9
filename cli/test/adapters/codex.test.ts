import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, writeFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { codexAdapter } from "../../src/adapters/codex.js";
import { failure } from "../helpers/adapter-failure.js";
import { alive, type FakeCliHarness, FIXTURE_BIN, fakeCli } from "../helpers/fake-cli.js";
import { spawnDouble } from "../helpers/spawn-double.js";

let h: FakeCliHarness;
beforeEach(() => {
  h = fakeCli();
});
afterEach(() => h.cleanup());

describe("the fake codex (control: it blocks like the real one)", () => {
  it("waits for EOF on a piped stdin before doing anything, and uses what it read", async () => {
    const child = spawn(`${FIXTURE_BIN}/codex`, ["exec", "--json", "--skip-git-repo-check", "from argv"], {
      cwd: h.cwd,
      env: h.env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => {
      stderr += d;
    });
    let stdout = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d;
    });
    // It announces the read and then produces nothing while the pipe stays open...
    while (!stderr.includes("Reading additional input from stdin")) await once(child.stderr, "data");
    expect(stdout).toBe("");
    expect(child.exitCode).toBeNull();
    // ...and finishes only once stdin is closed.
    child.stdin.end("from stdin");
    const [code] = await once(child, "exit");
    expect(code).toBe(0);
    expect(h.calls({ event: "call" })[0]?.prompt).toBe("from argv\nfrom stdin");
  });
});

describe("codex adapter against the fake codex", () => {
  it("detects codex with its version", async () => {
    expect(await codexAdapter.detect({ env: h.env })).toEqual({
      path: expect.stringMatching(/fixtures\/bin\/codex$/),
      version: "codex-cli 0.125.0",
    });
  });

  it("runs `codex exec`, reads the reply from the -o file and the thread id from thread.started", async () => {
    const r = await codexAdapter.spawn("lily (human): hi", h.ctx());
    const [call] = h.calls({ event: "call" });
    expect(call?.argv.slice(0, 5)).toEqual([
      "exec",
      "--json",
      "--skip-git-repo-check",
      "-o",
      expect.any(String),
    ]);
    expect(call?.argv).toHaveLength(6);
    expect(r.newSessionId).toBe(call?.session);
    // Only the reply: none of the JSONL stream leaks into the text.
    expect(r.text).toBe(`codex turn 1 of ${call?.session}: lily (human): hi`);
    // The temporary -o file is gone afterwards.
    expect(existsSync(call!.argv[4]!)).toBe(false);
  });

  it("keeps stdin ignored, so codex never blocks on it", async () => {
    await codexAdapter.spawn("hi", h.ctx());
    expect(h.calls({ event: "reading-stdin" })[0]?.stdin).toBe("null");
  });

  it("continues the thread with `codex exec resume <id>` on later turns", async () => {
    const first = await codexAdapter.spawn("one", h.ctx());
    const second = await codexAdapter.spawn("two", h.ctx({ sessionId: first.newSessionId! }));
    expect(second.newSessionId).toBe(first.newSessionId);
    expect(second.text).toBe(`codex turn 2 of ${first.newSessionId}: two`);
    const calls = h.calls({ event: "call" });
    expect(calls[1]?.argv.slice(0, 3)).toEqual(["exec", "resume", first.newSessionId]);
  });

  it("starts a fresh thread once when the stored thread is gone", async () => {
    const r = await codexAdapter.spawn("hi", h.ctx({ sessionId: "0000-gone" }));
    expect(r.newSessionId).not.toBe("0000-gone");
    expect(h.calls({ event: "call" }).map((c) => c.argv[1])).toEqual(["--json"]);
  });

  it.each([
    ["ratelimit", "rate_limit"],
    ["quota", "quota"],
    ["auth", "configuration"],
    ["crash", "runtime"],
  ] as const)("classifies the JSONL error of FAKE_CLI_MODE=%s as %s", async (mode, kind) => {
    const err = await failure(codexAdapter.spawn("hi", h.ctx({}, { FAKE_CLI_MODE: mode })));
    expect(err.kind).toBe(kind);
    expect(err.exitCode).not.toBe(0);
  });

  it("writes memory back from a memory block in the reply", async () => {
    const r = await codexAdapter.spawn(
      "remember",
      h.ctx({ memoryLongTerm: "old" }, { FAKE_CLI_MODE: "memory", FAKE_CLI_MEMORY: "new memory" }),
    );
    expect(r).toMatchObject({ text: "noted.", memorySummary: "new memory" });
    expect(h.calls({ event: "call" })[0]?.prompt).toContain(
      "=== Context (your persistent memory) ===\nold\n",
    );
  });

  it("kills a hanging codex at the timeout", async () => {
    const err = await failure(
      codexAdapter.spawn("hi", h.ctx({ timeoutMs: 2000 }, { FAKE_CLI_MODE: "hang" })),
    );
    expect(err.kind).toBe("timeout");
    expect(alive(h.calls({ event: "hanging" })[0]!.pid)).toBe(false);
  });
});

describe("codex adapter through _spawnImpl", () => {
  it("spawns with stdio ['ignore', 'pipe', 'pipe']", async () => {
    const { impl, calls } = spawnDouble({
      stdout: '{"type":"thread.started","thread_id":"t-1"}\n',
      before: (args) => writeFileSync(args[4]!, "the reply"),
    });
    const r = await codexAdapter.spawn("hi", { ...h.ctx(), _spawnImpl: impl });
    expect(calls[0]?.options.stdio).toEqual(["ignore", "pipe", "pipe"]);
    expect(r).toEqual({ text: "the reply", newSessionId: "t-1" });
  });

  it("fails with the JSONL error when codex exits 0 without writing the -o file", async () => {
    const { impl } = spawnDouble({
      stdout: '{"type":"turn.failed","error":{"message":"You\'ve hit your usage limit."}}\n',
    });
    const err = await failure(codexAdapter.spawn("hi", { ...h.ctx(), _spawnImpl: impl }));
    expect(err.kind).toBe("quota");
    expect(err.message).toContain("usage limit");
  });
});
