import { describe, expect, it } from "vitest";
import { describeInvocation } from "../../src/loop/invocation.js";

const turn = "lily (human): hey claude, what's the weather?";

describe("describeInvocation shows a spawn as ADR-005's user flow does", () => {
  it.each([
    ["claude", undefined, `claude -p "${turn}"`],
    ["codex", undefined, `codex exec "${turn}"`],
    ["gemini", undefined, `gemini -p "${turn}"`],
    ["cursor", undefined, `cursor-agent -p "${turn}"`],
    ["stub", undefined, `stub "${turn}"`],
    ["cmd", { command: "./bot.py", args: ["--ask", "{prompt}"] }, `./bot.py --ask "${turn}"`],
    ["cmd", { command: "./bot.sh" }, `./bot.sh <<< "${turn}"`],
  ])("%s %j", (adapter, cmd, want) => {
    expect(describeInvocation(adapter, turn, cmd)).toBe(want);
  });

  it("shortens a long, multi-line turn to one line of at most 60 characters", () => {
    const shown = describeInvocation("claude", `${"word ".repeat(40)}\nsecond line`);
    expect(shown).toMatch(/^claude -p "(word ){11}word…"$/);
  });
});
