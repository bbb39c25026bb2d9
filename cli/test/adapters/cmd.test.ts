import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AdapterError } from "../../src/adapters/adapter-error.js";
import { createCmdAdapter } from "../../src/adapters/cmd.js";
import { type FakeCliHarness, FIXTURE_BIN, fakeCli } from "../helpers/fake-cli.js";
import { spawnDouble } from "../helpers/spawn-double.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let h: FakeCliHarness;
beforeEach(() => {
  h = fakeCli();
});
afterEach(() => h.cleanup());

describe("cmd adapter", () => {
  it("substitutes {prompt} as exactly one argv element, with no shell in between", async () => {
    const bot = createCmdAdapter({ command: "echo-bot", args: ["--ask", "{prompt}"] });
    const nasty = `it's "$HOME" $(rm -rf /) \`id\` $& ; | *`;
    await bot.spawn(nasty, h.ctx({}, { FAKE_CLI_MODE: "echo" }));
    const [call] = h.calls({ event: "call" });
    expect(call?.argv).toHaveLength(2);
    expect(call?.argv[0]).toBe("--ask");
    expect(call?.argv[1]?.startsWith(nasty)).toBe(true);
    expect(call?.stdin).toBe("null");
  });

  it("substitutes {prompt} inside a larger element", async () => {
    const { impl, calls } = spawnDouble({ stdout: "ok" });
    const bot = createCmdAdapter({ command: "bot", args: ["--msg={prompt}", "--x"] });
    await bot.spawn("hi", { ...h.ctx(), _spawnImpl: impl });
    expect(calls[0]?.args[0]).toMatch(/^--msg=hi\n\n=== Memory ===/);
    expect(calls[0]?.args[1]).toBe("--x");
  });

  it("sends the prompt on stdin when the template has no {prompt}", async () => {
    const bot = createCmdAdapter({ command: join(FIXTURE_BIN, "echo-bot") });
    const r = await bot.spawn("lily (human): hi", h.ctx({}, { FAKE_CLI_MODE: "reply" }));
    const [call] = h.calls({ event: "call" });
    expect(call?.argv).toEqual([]);
    expect(call?.stdin).toBe("pipe");
    expect(call?.prompt).toMatch(/^lily \(human\): hi\n\n=== Memory ===/);
    expect(r.text).toBe(`echo-bot turn 1 of ${r.newSessionId}: lily (human): hi`);
  });

  it("mints COMMONLY_SESSION_ID on the first turn and passes the stored one after", async () => {
    const bot = createCmdAdapter({ command: "echo-bot" });
    const first = await bot.spawn("one", h.ctx());
    expect(first.newSessionId).toMatch(UUID);
    const second = await bot.spawn("two", h.ctx({ sessionId: first.newSessionId! }));
    expect(second.newSessionId).toBe(first.newSessionId);
    expect(h.calls({ event: "call" }).map((c) => c.session)).toEqual([
      first.newSessionId,
      first.newSessionId,
    ]);
  });

  it("writes memory back from a memory block and carries memory into the prompt", async () => {
    const bot = createCmdAdapter({ command: "echo-bot" });
    const r = await bot.spawn(
      "remember",
      h.ctx(
        { memoryLongTerm: "likes tea" },
        { FAKE_CLI_MODE: "memory", FAKE_CLI_MEMORY: "likes tea and kiwis" },
      ),
    );
    expect(r).toMatchObject({ text: "noted.", memorySummary: "likes tea and kiwis" });
    expect(h.calls({ event: "call" })[0]?.prompt).toContain(
      "=== Context (your persistent memory) ===\nlikes tea\n",
    );
  });

  it("with memory off, passes the bare turn and keeps a memory block as plain reply text", async () => {
    const bot = createCmdAdapter({ command: "echo-bot", memory: false });
    const r = await bot.spawn(
      "lily (human): hi",
      h.ctx({ memoryLongTerm: "secret memory" }, { FAKE_CLI_MODE: "memory" }),
    );
    expect(h.calls({ event: "call" })[0]?.prompt).toBe("lily (human): hi");
    expect(r.memorySummary).toBeUndefined();
    expect(r.text).toContain("<commonly-memory>");
  });

  it("fails with a classified AdapterError", async () => {
    const bot = createCmdAdapter({ command: "echo-bot" });
    const err = await bot.spawn("x", h.ctx({}, { FAKE_CLI_MODE: "quota" })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AdapterError);
    expect((err as AdapterError).kind).toBe("quota");
  });

  it("detects the command without running it, or with --version when asked", async () => {
    expect(await createCmdAdapter({ command: "echo-bot" }).detect({ env: h.env })).toEqual({
      path: join(FIXTURE_BIN, "echo-bot"),
      version: "unknown",
    });
    expect(
      await createCmdAdapter({ command: "echo-bot", versionFlag: true }).detect({ env: h.env }),
    ).toMatchObject({
      version: "echo-bot 1.0",
    });
    expect(await createCmdAdapter({ command: "./nope.sh" }).detect({ env: h.env, cwd: h.cwd })).toBeNull();
    expect(h.calls()).toEqual([]);
  });

  it("rejects an empty command", () => {
    expect(() => createCmdAdapter({ command: " " })).toThrow(TypeError);
  });
});
