import { describe, expect, it } from "vitest";
import { buildPrompt, extractMemory, MEMORY_INSTRUCTION } from "../src/memory-bridge.js";

describe("buildPrompt", () => {
  const cases = [
    {
      name: "memory present: ADR-005's preamble, then the instruction",
      given: { memoryLongTerm: "Lily is allergic to kiwis.", turn: "lily (human): fruit ideas?" },
      want: `=== Context (your persistent memory) ===\nLily is allergic to kiwis.\n=== Current turn ===\nlily (human): fruit ideas?\n\n${MEMORY_INSTRUCTION}`,
    },
    {
      name: "memory trimmed of surrounding whitespace",
      given: { memoryLongTerm: "\n  a\nb  \n\n", turn: "t" },
      want: `=== Context (your persistent memory) ===\na\nb\n=== Current turn ===\nt\n\n${MEMORY_INSTRUCTION}`,
    },
    {
      name: "no memory: no preamble, still invited to start one",
      given: { memoryLongTerm: "", turn: "hi" },
      want: `hi\n\n${MEMORY_INSTRUCTION}`,
    },
    {
      name: "whitespace-only memory counts as none",
      given: { memoryLongTerm: " \n ", turn: "hi" },
      want: `hi\n\n${MEMORY_INSTRUCTION}`,
    },
    {
      name: "instruction switched off",
      given: { memoryLongTerm: "m", turn: "t", askForMemory: false },
      want: "=== Context (your persistent memory) ===\nm\n=== Current turn ===\nt",
    },
    {
      name: "instruction off and no memory: the turn alone",
      given: { memoryLongTerm: "", turn: "t", askForMemory: false },
      want: "t",
    },
  ];
  it.each(cases)("$name", ({ given, want }) => {
    expect(buildPrompt(given)).toBe(want);
  });

  it("asks for the delimited block in the instruction", () => {
    expect(MEMORY_INSTRUCTION).toContain("<commonly-memory>");
    expect(MEMORY_INSTRUCTION).toContain("</commonly-memory>");
  });
});

describe("extractMemory", () => {
  const cases: Array<{ name: string; given: string; want: { reply: string; memorySummary?: string } }> = [
    { name: "no block", given: "Just an answer.\n", want: { reply: "Just an answer." } },
    {
      name: "trailing block",
      given: "Noted, no kiwis.\n\n<commonly-memory>\nLily is allergic to kiwis.\n</commonly-memory>\n",
      want: { reply: "Noted, no kiwis.", memorySummary: "Lily is allergic to kiwis." },
    },
    {
      name: "block between paragraphs leaves one paragraph break",
      given: "First.\n\n<commonly-memory>m</commonly-memory>\n\nSecond.",
      want: { reply: "First.\n\nSecond.", memorySummary: "m" },
    },
    {
      name: "several blocks: the last wins, all are stripped",
      given: "a\n<commonly-memory>old</commonly-memory>\nb\n<commonly-memory>new</commonly-memory>",
      want: { reply: "a\n\nb", memorySummary: "new" },
    },
    {
      name: "multi-line memory keeps its inner lines",
      given: "ok<commonly-memory>\n- one\n- two\n</commonly-memory>",
      want: { reply: "ok", memorySummary: "- one\n- two" },
    },
    {
      name: "empty block is no update, not an erase",
      given: "ok\n<commonly-memory>  \n </commonly-memory>",
      want: { reply: "ok" },
    },
    {
      name: "reply that is only a block",
      given: "<commonly-memory>m</commonly-memory>",
      want: { reply: "", memorySummary: "m" },
    },
    {
      name: "unclosed block stays in the reply",
      given: "text <commonly-memory>cut off",
      want: { reply: "text <commonly-memory>cut off" },
    },
  ];
  it.each(cases)("$name", ({ given, want }) => {
    expect(extractMemory(given)).toEqual(want);
  });

  it("round-trips: what buildPrompt injects, a CLI can hand back updated", () => {
    const prompt = buildPrompt({ memoryLongTerm: "likes tea", turn: "I also like kiwis" });
    expect(prompt).toContain("likes tea");
    const cliOutput = "Got it.\n<commonly-memory>likes tea and kiwis</commonly-memory>";
    expect(extractMemory(cliOutput)).toEqual({ reply: "Got it.", memorySummary: "likes tea and kiwis" });
  });
});
