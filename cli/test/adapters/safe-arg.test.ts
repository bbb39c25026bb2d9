import { describe, expect, it } from "vitest";
import { argText, promptArg } from "../../src/adapters/safe-arg.js";

describe("promptArg", () => {
  it.each([
    ["hello", "hello"],
    ["--help me", " --help me"],
    ["-p", " -p"],
    ["a - b", "a - b"],
    ["nul\u0000here", "nulhere"],
    ["\u0000-x", " -x"],
  ])("%j → %j", (given, want) => {
    expect(promptArg(given)).toBe(want);
  });

  it("argText only drops NUL", () => {
    expect(argText("-a\u0000b c")).toBe("-ab c");
  });
});
