import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AdapterError } from "../../src/adapters/adapter-error.js";
import { geminiAdapter } from "../../src/adapters/gemini.js";
import { type FakeCliHarness, fakeCli } from "../helpers/fake-cli.js";
import { spawnDouble } from "../helpers/spawn-double.js";

let h: FakeCliHarness;
beforeEach(() => {
  h = fakeCli();
});
afterEach(() => h.cleanup());

describe("gemini adapter", () => {
  it("detects gemini with its version", async () => {
    expect(await geminiAdapter.detect({ env: h.env })).toMatchObject({ version: "0.9.0" });
  });

  it("runs `gemini -p <prompt>` with stdin ignored and returns stdout without a session", async () => {
    const r = await geminiAdapter.spawn("lily (human): hi", h.ctx());
    expect(r).toEqual({ text: "gemini turn 1 of no-session: lily (human): hi" });
    const [call] = h.calls({ event: "call" });
    expect(call?.argv).toEqual(["-p", expect.stringMatching(/^lily \(human\): hi\n\n=== Memory ===/)]);
    expect(call?.stdin).toBe("null");
  });

  it("returns a memory block as memorySummary", async () => {
    const r = await geminiAdapter.spawn("x", h.ctx({}, { FAKE_CLI_MODE: "memory", FAKE_CLI_MEMORY: "m" }));
    expect(r).toEqual({ text: "noted.", memorySummary: "m" });
  });

  it("fails with a classified AdapterError", async () => {
    const err = await geminiAdapter
      .spawn("x", h.ctx({}, { FAKE_CLI_MODE: "ratelimit" }))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AdapterError);
    expect((err as AdapterError).kind).toBe("rate_limit");
  });

  it("honours _spawnImpl", async () => {
    const { impl, calls } = spawnDouble({ stdout: "hi\n" });
    expect(await geminiAdapter.spawn("x", { ...h.ctx(), _spawnImpl: impl })).toEqual({ text: "hi" });
    expect(calls[0]?.command).toBe("gemini");
  });
});
