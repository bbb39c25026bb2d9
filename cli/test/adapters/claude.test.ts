import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { claudeAdapter } from "../../src/adapters/claude.js";
import { MEMORY_INSTRUCTION } from "../../src/memory-bridge.js";
import { failure } from "../helpers/adapter-failure.js";
import { alive, type FakeCliHarness, fakeCli } from "../helpers/fake-cli.js";
import { spawnDouble } from "../helpers/spawn-double.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let h: FakeCliHarness;
beforeEach(() => {
  h = fakeCli();
});
afterEach(() => h.cleanup());

// Timeouts in the hang tests leave the fake ample time to start (and install its SIGTERM handler)
// even on a loaded machine; the assertions are about how it is killed, not how fast.
describe("claude adapter against the fake claude", () => {
  it("detects claude on PATH with its version, and reports null when absent", async () => {
    expect(await claudeAdapter.detect({ env: h.env })).toEqual({
      path: expect.stringMatching(/fixtures\/bin\/claude$/),
      version: "2.5.1 (Claude Code)",
    });
    expect(await claudeAdapter.detect({ env: { PATH: h.cwd } })).toBeNull();
  });

  it("starts a session with a fresh --session-id on the first turn and resumes it after", async () => {
    const first = await claudeAdapter.spawn("lily (human): hi", h.ctx());
    expect(first.newSessionId).toMatch(UUID);
    expect(first.text).toBe(`claude turn 1 of ${first.newSessionId}: lily (human): hi`);

    const second = await claudeAdapter.spawn(
      "lily (human): again",
      h.ctx({ sessionId: first.newSessionId! }),
    );
    expect(second).toEqual({
      text: `claude turn 2 of ${first.newSessionId}: lily (human): again`,
      newSessionId: first.newSessionId,
    });

    const [c1, c2] = h.calls({ event: "call" });
    expect(c1?.argv).toEqual([
      "-p",
      expect.any(String),
      "--output-format",
      "text",
      "--session-id",
      first.newSessionId,
    ]);
    expect(c2?.argv).toEqual([
      "-p",
      expect.any(String),
      "--output-format",
      "text",
      "--resume",
      first.newSessionId,
    ]);
    expect(c1?.cwd).toBe(h.cwd);
  });

  it("retries once with a fresh session when the stored session is gone", async () => {
    const stale = "00000000-0000-4000-8000-000000000000";
    const result = await claudeAdapter.spawn("hi", h.ctx({ sessionId: stale }));
    expect(result.newSessionId).toMatch(UUID);
    expect(result.newSessionId).not.toBe(stale);
    expect(result.text).toBe(`claude turn 1 of ${result.newSessionId}: hi`);
    // The failed resume is not recorded as a call (claude exits before the turn); the fresh one is.
    const calls = h.calls({ event: "call" });
    expect(calls).toHaveLength(1);
    expect(calls[0]?.argv).toContain("--session-id");
  });

  it("does not retry a resume that failed for another reason", async () => {
    const first = await claudeAdapter.spawn("hi", h.ctx());
    const err = await failure(
      claudeAdapter.spawn("hi", h.ctx({ sessionId: first.newSessionId! }, { FAKE_CLI_MODE: "crash" })),
    );
    expect(err.kind).toBe("runtime");
    expect(err.exitCode).toBe(3);
    expect(err.stderrTail).toContain("panic: fake crash");
    expect(h.calls({ event: "call" })).toHaveLength(2);
  });

  it.each([
    ["ratelimit", "rate_limit"],
    ["quota", "quota"],
    ["auth", "configuration"],
    ["crash", "runtime"],
  ] as const)("turns FAKE_CLI_MODE=%s into an AdapterError of kind %s", async (mode, kind) => {
    const err = await failure(claudeAdapter.spawn("hi", h.ctx({}, { FAKE_CLI_MODE: mode })));
    expect(err.kind).toBe(kind);
  });

  it("recovers on the next turn after a crash (FAKE_CLI_MODE scripts successive calls)", async () => {
    const ctx = h.ctx({}, { FAKE_CLI_MODE: "crash,reply" });
    expect((await failure(claudeAdapter.spawn("hi", ctx))).kind).toBe("runtime");
    expect((await claudeAdapter.spawn("hi", ctx)).text).toMatch(/^claude turn 1 of .*: hi$/);
  });

  it("prepends memory as ADR-005's preamble and ignores stdin", async () => {
    await claudeAdapter.spawn(
      "lily (human): what do I like?",
      h.ctx({ memoryLongTerm: "Lily likes kiwis." }, { FAKE_CLI_MODE: "echo" }),
    );
    const [call] = h.calls({ event: "call" });
    expect(call?.prompt).toBe(
      `=== Context (your persistent memory) ===\nLily likes kiwis.\n=== Current turn ===\nlily (human): what do I like?\n\n${MEMORY_INSTRUCTION}`,
    );
    expect(call?.stdin).toBe("null");
  });

  it("returns a memory block as memorySummary and strips it from the reply", async () => {
    const r = await claudeAdapter.spawn(
      "remember kiwis",
      h.ctx({}, { FAKE_CLI_MODE: "memory", FAKE_CLI_MEMORY: "Lily is allergic to kiwis." }),
    );
    expect(r.text).toBe("noted.");
    expect(r.memorySummary).toBe("Lily is allergic to kiwis.");
  });

  it("passes a prompt that looks like an option as the prompt", async () => {
    const r = await claudeAdapter.spawn("--help me", h.ctx({}, { FAKE_CLI_MODE: "reply" }));
    expect(r.text).toContain("--help me");
  });

  it("kills a hanging claude at the timeout with SIGTERM", async () => {
    const err = await failure(
      claudeAdapter.spawn("hi", h.ctx({ timeoutMs: 2000 }, { FAKE_CLI_MODE: "hang" })),
    );
    expect(err).toMatchObject({ kind: "timeout", signal: "SIGTERM" });
    const [hung] = h.calls({ event: "hanging" });
    expect(alive(hung!.pid)).toBe(false);
  });

  it("escalates to SIGKILL when the hanging claude ignores SIGTERM", async () => {
    const err = await failure(
      claudeAdapter.spawn("hi", h.ctx({ timeoutMs: 2000, killGraceMs: 200 }, { FAKE_CLI_MODE: "hang-hard" })),
    );
    expect(err).toMatchObject({ kind: "timeout", signal: "SIGKILL" });
    expect(h.calls({ event: "sigterm-ignored" })).toHaveLength(1);
    expect(alive(h.calls({ event: "hanging" })[0]!.pid)).toBe(false);
  });
});

describe("claude adapter through _spawnImpl", () => {
  it("builds the argv, ignores stdin and returns stdout as the reply", async () => {
    const { impl, calls } = spawnDouble({ stdout: "hello\n" });
    const r = await claudeAdapter.spawn("hi", { ...h.ctx(), _spawnImpl: impl });
    expect(r.text).toBe("hello");
    expect(calls[0]?.command).toBe("claude");
    expect(calls[0]?.args.slice(2)).toEqual(["--output-format", "text", "--session-id", r.newSessionId]);
    expect(calls[0]?.options.stdio).toEqual(["ignore", "pipe", "pipe"]);
  });

  it("makes exactly one fresh attempt when resume keeps failing", async () => {
    const { impl, calls } = spawnDouble({ stderr: "No conversation found with session ID: x", code: 1 });
    const err = await failure(claudeAdapter.spawn("hi", { ...h.ctx({ sessionId: "x" }), _spawnImpl: impl }));
    expect(err.kind).toBe("runtime");
    expect(calls.map((c) => c.args[4])).toEqual(["--resume", "--session-id"]);
  });
});

describe("claude adapter with a hostile prompt", () => {
  it("delivers a prompt containing NUL minus the NUL instead of failing to spawn", async () => {
    const r = await claudeAdapter.spawn("a\u0000b", h.ctx());
    expect(r.text).toContain(": ab");
  });
});
