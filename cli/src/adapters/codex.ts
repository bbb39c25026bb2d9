/**
 * Adapter for OpenAI's `codex` CLI (ADR-005, codex 0.125+):
 *   codex exec --json --skip-git-repo-check -o <file> <prompt>               (first turn)
 *   codex exec resume <id> --json --skip-git-repo-check -o <file> <prompt>   (after)
 *
 * Two landmines pinned here. stdin must be ignored: with a pipe, codex waits forever on "Reading
 * additional input from stdin". And the reply is read from the -o file rather than reassembled
 * from the JSONL stream; the stream is read only for the `thread.started` thread id and, on a
 * failure, for the error messages codex prints there instead of on stderr. Like claude, a stored
 * thread that no longer exists gets one fresh start instead of failing every later turn.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildPrompt, extractMemory } from "../memory-bridge.js";
import { AdapterError, classifyFailure, isAdapterError } from "./adapter-error.js";
import { detectCommand } from "./detect.js";
import { contextOptions, exitFailure, runProcess } from "./run-process.js";
import { promptArg } from "./safe-arg.js";
import type { Adapter, SpawnContext, SpawnResult } from "./types.js";

const RESUME_FAILED = /no rollout found|no conversation found|session|thread/i;

interface CodexStream {
  threadId?: string;
  errors: string[];
}

function readStream(jsonl: string): CodexStream {
  const out: CodexStream = { errors: [] };
  for (const line of jsonl.split("\n")) {
    if (!line.trim().startsWith("{")) continue;
    let ev: Record<string, unknown>;
    try {
      ev = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (ev.type === "thread.started" && typeof ev.thread_id === "string") out.threadId = ev.thread_id;
    const failed =
      ev.type === "turn.failed" ? (ev.error as Record<string, unknown> | undefined)?.message : undefined;
    const msg = ev.type === "error" ? ev.message : failed;
    if (typeof msg === "string" && !out.errors.includes(msg)) out.errors.push(msg);
  }
  return out;
}

async function turn(prompt: string, resumeId: string | null, ctx: SpawnContext): Promise<SpawnResult> {
  const dir = await mkdtemp(join(tmpdir(), "commonly-codex-"));
  const outFile = join(dir, "reply.txt");
  try {
    const head = resumeId ? ["exec", "resume", resumeId] : ["exec"];
    // No `input`: runProcess spawns with stdio ['ignore', 'pipe', 'pipe'].
    const run = await runProcess({
      command: "codex",
      args: [...head, "--json", "--skip-git-repo-check", "-o", outFile, promptArg(prompt)],
      ...contextOptions(ctx),
      check: false,
    });
    const stream = readStream(run.stdout);
    // Codex prints provider errors (rate limits, usage limits) in its JSONL, not on stderr.
    const errors = [run.stderr.trim(), ...stream.errors].filter(Boolean).join("\n");
    if (run.exitCode !== 0) {
      throw exitFailure("codex", { exitCode: run.exitCode, signal: run.signal, stderr: errors, stdout: "" });
    }
    const text = await readFile(outFile, "utf8").catch(() => null);
    if (text === null) {
      throw new AdapterError(`codex wrote no reply to its -o file${errors ? `: ${errors}` : ""}`, {
        kind: classifyFailure({ exitCode: 0, stderr: errors, stdout: "" }),
        exitCode: 0,
        stderrTail: errors.slice(-4096),
      });
    }
    const { reply, memorySummary } = extractMemory(text);
    const newSessionId = stream.threadId ?? resumeId ?? undefined;
    return {
      text: reply,
      ...(newSessionId ? { newSessionId } : {}),
      ...(memorySummary === undefined ? {} : { memorySummary }),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export const codexAdapter: Adapter = {
  name: "codex",
  detect: (opts) => detectCommand("codex", opts),
  async spawn(prompt, ctx) {
    const full = buildPrompt({ memoryLongTerm: ctx.memoryLongTerm, turn: prompt });
    if (ctx.sessionId) {
      try {
        return await turn(full, ctx.sessionId, ctx);
      } catch (err) {
        const resumeFailed =
          isAdapterError(err) && err.kind === "runtime" && !err.aborted && RESUME_FAILED.test(err.stderrTail);
        if (!resumeFailed) throw err;
      }
    }
    return turn(full, null, ctx);
  },
};
