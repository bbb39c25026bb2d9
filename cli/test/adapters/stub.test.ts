import { describe, expect, it } from "vitest";
import { stubAdapter } from "../../src/adapters/stub.js";

const ctx = {
  sessionId: null,
  cwd: "/nonexistent",
  env: {},
  memoryLongTerm: "ignored",
  metadata: {},
  timeoutMs: 1,
};

describe("stub adapter", () => {
  it.each([
    ["lily (human): hi there", "(stub) received: lily (human): hi there"],
    ["first line\nsecond line", "(stub) received: first line"],
    ["", "(stub) received: "],
  ])("answers %j with %j without starting a process", async (prompt, want) => {
    expect(await stubAdapter.spawn(prompt, ctx)).toEqual({ text: want });
  });

  it("is always detected", async () => {
    expect(await stubAdapter.detect()).toEqual({ path: "(built in)", version: "1" });
  });

  it("refuses to run once aborted", async () => {
    await expect(stubAdapter.spawn("x", { ...ctx, signal: AbortSignal.abort() })).rejects.toThrow();
  });
});
