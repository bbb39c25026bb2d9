/**
 * Adapter for Anthropic's `claude` CLI (ADR-005): `claude -p <prompt> --output-format text`,
 * `--session-id <uuid>` on a pod's first turn and `--resume <uuid>` after it.
 *
 * A stored session can disappear (claude's history pruned, another machine, a reinstall). Resuming
 * it then fails with "No conversation found with session ID"; the adapter starts one fresh session
 * exactly once instead of failing every turn of that pod forever.
 */
import { randomUUID } from "node:crypto";
import { buildPrompt, extractMemory } from "../memory-bridge.js";
import { type AdapterError, isAdapterError } from "./adapter-error.js";
import { detectCommand } from "./detect.js";
import { contextOptions, runProcess } from "./run-process.js";
import { promptArg } from "./safe-arg.js";
import type { Adapter, SpawnContext, SpawnResult } from "./types.js";

const RESUME_FAILED = /no conversation found|session/i;

function isResumeFailure(err: unknown): err is AdapterError {
  return (
    isAdapterError(err) &&
    err.kind === "runtime" &&
    !err.aborted &&
    err.exitCode !== null &&
    RESUME_FAILED.test(`${err.stderrTail}\n${err.message}`)
  );
}

async function turn(
  prompt: string,
  session: string[],
  sessionId: string,
  ctx: SpawnContext,
): Promise<SpawnResult> {
  const { stdout } = await runProcess({
    command: "claude",
    args: ["-p", promptArg(prompt), "--output-format", "text", ...session],
    ...contextOptions(ctx),
  });
  const { reply, memorySummary } = extractMemory(stdout);
  return { text: reply, newSessionId: sessionId, ...(memorySummary === undefined ? {} : { memorySummary }) };
}

export const claudeAdapter: Adapter = {
  name: "claude",
  detect: (opts) => detectCommand("claude", opts),
  async spawn(prompt, ctx) {
    const full = buildPrompt({ memoryLongTerm: ctx.memoryLongTerm, turn: prompt });
    if (ctx.sessionId) {
      try {
        return await turn(full, ["--resume", ctx.sessionId], ctx.sessionId, ctx);
      } catch (err) {
        if (!isResumeFailure(err)) throw err;
      }
    }
    const fresh = randomUUID();
    return turn(full, ["--session-id", fresh], fresh, ctx);
  },
};
