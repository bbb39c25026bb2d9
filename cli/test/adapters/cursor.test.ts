import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AdapterError } from "../../src/adapters/adapter-error.js";
import { cursorAdapter } from "../../src/adapters/cursor.js";
import { type FakeCliHarness, fakeCli } from "../helpers/fake-cli.js";
import { spawnDouble } from "../helpers/spawn-double.js";

let h: FakeCliHarness;
beforeEach(() => {
  h = fakeCli();
});
afterEach(() => h.cleanup());

describe("cursor adapter", () => {
  it("detects the cursor-agent executable", async () => {
    expect(await cursorAdapter.detect({ env: h.env })).toEqual({
      path: expect.stringMatching(/fixtures\/bin\/cursor-agent$/),
      version: "2025.10.02-fake",
    });
    expect(cursorAdapter.name).toBe("cursor");
  });

  it("runs cursor-agent in print mode and returns stdout", async () => {
    const r = await cursorAdapter.spawn("lily (human): hi", h.ctx());
    expect(r).toEqual({ text: "cursor-agent turn 1 of no-session: lily (human): hi" });
    expect(h.calls({ event: "call" })[0]?.argv).toEqual([
      "-p",
      expect.any(String),
      "--output-format",
      "text",
    ]);
  });

  it("fails with a classified AdapterError", async () => {
    const err = await cursorAdapter.spawn("x", h.ctx({}, { FAKE_CLI_MODE: "auth" })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AdapterError);
    expect((err as AdapterError).kind).toBe("configuration");
  });

  it("honours _spawnImpl", async () => {
    const { impl, calls } = spawnDouble({ stdout: "ok" });
    expect(await cursorAdapter.spawn("x", { ...h.ctx(), _spawnImpl: impl })).toEqual({ text: "ok" });
    expect(calls[0]?.command).toBe("cursor-agent");
  });
});
