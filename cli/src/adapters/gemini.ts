/**
 * Adapter for Google's `gemini` CLI (ADR-005 table): `gemini -p <prompt>`, reply on stdout.
 * No session flag, so every turn is fresh; continuity comes only from the memory preamble.
 */
import { buildPrompt, extractMemory } from "../memory-bridge.js";
import { detectCommand } from "./detect.js";
import { contextOptions, runProcess } from "./run-process.js";
import { promptArg } from "./safe-arg.js";
import type { Adapter } from "./types.js";

export const geminiAdapter: Adapter = {
  name: "gemini",
  detect: (opts) => detectCommand("gemini", opts),
  async spawn(prompt, ctx) {
    const full = buildPrompt({ memoryLongTerm: ctx.memoryLongTerm, turn: prompt });
    const { stdout } = await runProcess({
      command: "gemini",
      args: ["-p", promptArg(full)],
      ...contextOptions(ctx),
    });
    const { reply, memorySummary } = extractMemory(stdout);
    return memorySummary === undefined ? { text: reply } : { text: reply, memorySummary };
  },
};
