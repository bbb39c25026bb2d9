/**
 * One turn of the wrapped CLI for one CAP event — the handler runDriver calls, one at a time:
 *
 *   GET /memory → long_term, session id of the pod → adapter.spawn (spinner) → save the session →
 *   POST /memory/sync (only when the CLI returned a memory block) → post the reply in parts, each
 *   with Idempotency-Key `reply:<eventId>:<n>` → return the ack result.
 *
 * Throwing means "not handled": runDriver does not ack, stops the batch and applies the retry
 * circuit with the AdapterError's `kind` as the failure class. When the spawn succeeded but a later
 * step failed, the output is kept in memory and reused when the event comes back (ADR-005 invariant
 * 7), so a retry neither runs the model again nor posts different text; and a post that the kernel
 * answers 422 `idempotency_key_reused` was posted by an earlier attempt, so it counts as posted.
 *
 * The wrapped CLI gets the turn's W3C trace context as `TRACEPARENT` and `TRACESTATE` (none inherited
 * from this process: they would name another trace), so what it records joins the event's trace.
 *
 * A turn whose event is cancelled (a human's Stop, double texting) sees `ctx.signal` abort with a
 * `CancelledError`: the wrapped CLI's process group gets SIGTERM, then SIGKILL after the cancel grace;
 * nothing is posted, except one "stopped" note when the installation asked for it; runDriver acks
 * `cancelled` once this handler has settled.
 * This module never acks and never prints directly: the reporter does.
 */
import {
  type AckResult,
  CancelledError,
  CapHttpError,
  type Event,
  type HandlerContext,
} from "@commonly/cap-sdk";
import { AdapterError } from "../adapters/adapter-error.js";
import type { CmdAdapterOptions } from "../adapters/cmd.js";
import type { Adapter, SpawnResult } from "../adapters/types.js";
import { idempotencyKey, shouldPost, splitReply, stopNote, stopNoteKey } from "../reply.js";
import type { SessionStore } from "../state/sessions.js";
import { isHeartbeatType, turnFromEvent } from "../turn.js";
import { preview } from "../ui/terminal.js";
import { describeInvocation } from "./invocation.js";
import type { Reporter } from "./reporter.js";

export interface TurnDeps {
  adapter: Adapter;
  adapterName: string;
  cmdOptions?: Partial<CmdAdapterOptions>;
  sessions: SessionStore;
  cwd: string;
  env: Record<string, string | undefined>;
  timeoutMs: number;
  /** Largest post in UTF-8 bytes (from /info). */
  maxMessageBytes(): number;
  /** Aborts a running CLI at once (a second Ctrl+C). */
  kill: AbortSignal;
  /** After a cancel, how long the CLI's process group has between SIGTERM and SIGKILL. */
  cancelGraceMs: number;
  /** Post one "stopped" note after a cancel (the installation's `--stop-note`). */
  stopNote: boolean;
  report: Reporter;
}

const CACHE_LIMIT = 20;

/** The turn's trace context as the environment variables OpenTelemetry's SDKs read (undefined unsets). */
function traceEnv(ctx: HandlerContext): { TRACEPARENT: string | undefined; TRACESTATE: string | undefined } {
  const trace = ctx.traceContext;
  return { TRACEPARENT: trace?.traceparent, TRACESTATE: trace?.traceparent ? trace.tracestate : undefined };
}

/** A signal that aborts when either does, and a dispose that detaches it (no listener outlives a turn). */
function linked(a: AbortSignal, b: AbortSignal): { signal: AbortSignal; dispose(): void } {
  const both = new AbortController();
  const detach: Array<() => void> = [];
  for (const s of [a, b]) {
    if (s.aborted) both.abort(s.reason);
    const onAbort = () => both.abort(s.reason);
    s.addEventListener("abort", onAbort, { once: true });
    detach.push(() => s.removeEventListener("abort", onAbort));
  }
  return {
    signal: both.signal,
    dispose() {
      for (const d of detach) d();
    },
  };
}

export function createTurnHandler(deps: TurnDeps) {
  const { report } = deps;
  const outputs = new Map<string, SpawnResult>();

  async function spawnTurn(event: Event, turn: string, ctx: HandlerContext): Promise<SpawnResult> {
    const memory = await ctx.client.getMemory({ signal: ctx.signal });
    const memoryLongTerm = memory.sections.long_term?.content ?? "";
    const session = await deps.sessions.get(event.podId);
    report.say("info", "spawn", `spawning: ${describeInvocation(deps.adapterName, turn, deps.cmdOptions)}`, {
      eventId: event.id,
      adapter: deps.adapterName,
      sessionId: session?.sessionId ?? null,
      memoryBytes: Buffer.byteLength(memoryLongTerm),
    });
    const spinner = report.spin(`${deps.adapterName} is working…`);
    const stop = linked(ctx.signal, deps.kill);
    const started = Date.now();
    let result: SpawnResult;
    try {
      result = await deps.adapter.spawn(turn, {
        sessionId: session?.sessionId ?? null,
        cwd: deps.cwd,
        env: {
          ...deps.env,
          COMMONLY_EVENT_ID: event.id,
          COMMONLY_EVENT_TYPE: event.type,
          COMMONLY_POD_ID: event.podId,
          ...traceEnv(ctx),
        },
        memoryLongTerm,
        metadata: { eventId: event.id, type: event.type, podId: event.podId, attempts: event.attempts },
        timeoutMs: deps.timeoutMs,
        signal: stop.signal,
        abortGraceMs: (reason) => (reason instanceof CancelledError ? deps.cancelGraceMs : undefined),
      });
    } finally {
      stop.dispose();
      spinner.stop();
    }
    report.say("debug", "spawned", `${deps.adapterName} answered in ${Date.now() - started} ms`, {
      eventId: event.id,
      ms: Date.now() - started,
      bytes: Buffer.byteLength(result.text),
    });
    if (result.newSessionId) await deps.sessions.set(event.podId, result.newSessionId);
    return result;
  }

  async function post(event: Event, text: string, ctx: HandlerContext): Promise<AckResult> {
    const parts = splitReply(text, deps.maxMessageBytes());
    const replyTo = typeof event.payload.messageId === "string" ? event.payload.messageId : undefined;
    let messageId: string | undefined;
    let earlier = 0;
    for (const [i, content] of parts.entries()) {
      try {
        const posted = await ctx.client.postMessage(
          event.podId,
          { content, ...(replyTo ? { replyToMessageId: replyTo } : {}) },
          { idempotencyKey: idempotencyKey(event.id, i), signal: ctx.signal },
        );
        messageId = posted.id;
        if (posted.replayed) earlier++;
      } catch (err) {
        if (!(err instanceof CapHttpError && err.code === "idempotency_key_reused")) throw err;
        earlier++;
      }
    }
    const bytes = Buffer.byteLength(text);
    const how =
      parts.length > 1 ? `posted in ${parts.length} messages (${bytes} bytes)` : `posted (${bytes} bytes)`;
    const note = earlier > 0 ? ` — ${earlier} part(s) had been posted by an earlier attempt` : "";
    report.say(
      "info",
      "posted",
      `→ ${how}${note}`,
      { eventId: event.id, parts: parts.length, bytes, messageId },
      "good",
    );
    return {
      outcome: "posted",
      ...(messageId ? { messageId } : {}),
      ...(parts.length > 1 ? { details: { parts: parts.length } } : {}),
    };
  }

  /** The turn was cancelled and has stopped: say how, and post the one note if asked to. */
  async function stopped(event: Event, cancel: CancelledError, err: unknown, ctx: HandlerContext) {
    const killed = err instanceof AdapterError && err.aborted;
    const how = killed
      ? `${deps.adapterName} stopped (${err.signal ?? `exit ${err.exitCode}`})`
      : "turn stopped";
    const fields = { eventId: event.id, reason: cancel.reason, signal: killed ? err.signal : null };
    if (!deps.stopNote) {
      report.say("info", "turn_stopped", `■ ${how}; nothing posted`, fields);
      return;
    }
    const replyTo = typeof event.payload.messageId === "string" ? event.payload.messageId : undefined;
    try {
      // Without ctx.signal (it has aborted): this note is the one post a stopped turn may make.
      await ctx.client.postMessage(
        event.podId,
        { content: stopNote(cancel.reason), ...(replyTo ? { replyToMessageId: replyTo } : {}) },
        { idempotencyKey: stopNoteKey(event.id), retries: 1, timeoutMs: 5000 },
      );
      report.say("info", "turn_stopped", `■ ${how}; posted the stopped note`, { ...fields, note: true });
    } catch (noteError) {
      report.say(
        "warn",
        "stop_note_failed",
        `■ ${how}; the stopped note was not posted: ${String(noteError)}`,
        {
          ...fields,
          error: noteError,
        },
      );
    }
  }

  return async function handle(event: Event, ctx: HandlerContext): Promise<AckResult> {
    try {
      return await handleEvent(event, ctx);
    } catch (err) {
      const reason: unknown = ctx.signal.reason;
      if (reason instanceof CancelledError) await stopped(event, reason, err, ctx);
      throw err;
    }
  };

  async function handleEvent(event: Event, ctx: HandlerContext): Promise<AckResult> {
    const turn = turnFromEvent(event);
    const content = typeof event.payload.content === "string" ? ` ${preview(event.payload.content)}` : "";
    const retry = event.attempts > 1 ? ` (delivery ${event.attempts})` : "";
    report.say("info", "event", `← ${event.type}${content}${retry}`, {
      eventId: event.id,
      type: event.type,
      podId: event.podId,
      attempts: event.attempts,
    });
    let result = outputs.get(event.id);
    if (result) {
      report.say("info", "reuse", "reusing the output of the earlier attempt (no new spawn)", {
        eventId: event.id,
      });
    } else {
      result = await spawnTurn(event, turn, ctx);
      outputs.set(event.id, result);
      if (outputs.size > CACHE_LIMIT) outputs.delete(outputs.keys().next().value as string);
    }
    if (result.memorySummary !== undefined) {
      await ctx.client.syncMemory(
        {
          mode: "patch",
          sourceRuntime: "local-cli",
          sections: { long_term: { content: result.memorySummary, visibility: "private" } },
        },
        { signal: ctx.signal },
      );
      const bytes = Buffer.byteLength(result.memorySummary);
      report.say("info", "memory", `memory: long_term synced (${bytes} bytes)`, { eventId: event.id, bytes });
    }
    let ack: AckResult;
    if (shouldPost(result.text, event.type)) {
      ack = await post(event, result.text, ctx);
    } else {
      const word = result.text.trim();
      const why =
        word === "HEARTBEAT_OK" && isHeartbeatType(event.type)
          ? "HEARTBEAT_OK (no work)"
          : word === "NO_REPLY"
            ? "NO_REPLY (nothing posted)"
            : "empty reply (nothing posted)";
      report.say("info", "no_reply", why, { eventId: event.id });
      ack = { outcome: "no_action", reason: why };
    }
    outputs.delete(event.id);
    return ack;
  }
}
