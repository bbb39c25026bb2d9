import { describe, expect, it } from "vitest";
import { CliError } from "../../src/errors.js";
import { formatDuration, parseDuration } from "../../src/ui/duration.js";

describe("parseDuration", () => {
  it.each([
    ["300", 300_000],
    ["90s", 90_000],
    ["5m", 300_000],
    ["1500ms", 1500],
    ["1h", 3_600_000],
    ["0.5s", 500],
    [" 2m ", 120_000],
  ])("reads %j as %d ms", (text, ms) => {
    expect(parseDuration(text, "--timeout")).toBe(ms);
  });

  it.each(["", "0", "-5s", "5 minutes", "5d", "abc", "1e3"])(
    "refuses %j as a usage error naming the flag",
    (text) => {
      const err = (() => {
        try {
          parseDuration(text, "--timeout");
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(CliError);
      expect(err).toMatchObject({ code: "usage", exitCode: 2 });
      expect((err as Error).message).toContain("--timeout");
    },
  );
});

describe("formatDuration", () => {
  it.each([
    [850, "850 ms"],
    [12_000, "12s"],
    [65_400, "1m 05s"],
    [1_080_000, "18m 00s"],
  ])("shows %d ms as %j", (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});
