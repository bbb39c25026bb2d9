/**
 * Adapter for Cursor's `cursor-agent` CLI. ADR-005's table says `cursor-agent "$prompt"`, but
 * without `-p` (print mode) cursor-agent starts its interactive UI and never returns, so this
 * adapter runs `cursor-agent -p <prompt> --output-format text`. No session flag: every turn is
 * fresh, with the memory preamble as the only continuity.
 */
import { buildPrompt, extractMemory } from "../memory-bridge.js";
import { detectCommand } from "./detect.js";
import { contextOptions, runProcess } from "./run-process.js";
import { promptArg } from "./safe-arg.js";
import type { Adapter } from "./types.js";

export const cursorAdapter: Adapter = {
  name: "cursor",
  detect: (opts) => detectCommand("cursor-agent", opts),
  async spawn(prompt, ctx) {
    const full = buildPrompt({ memoryLongTerm: ctx.memoryLongTerm, turn: prompt });
    const { stdout } = await runProcess({
      command: "cursor-agent",
      args: ["-p", promptArg(full), "--output-format", "text"],
      ...contextOptions(ctx),
    });
    const { reply, memorySummary } = extractMemory(stdout);
    return memorySummary === undefined ? { text: reply } : { text: reply, memorySummary };
  },
};
