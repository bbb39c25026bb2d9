/**
 * One handler turn: builds the handler's context (its abort signal, `ctx.reply` with a per-event
 * idempotency key) and settles as done, failed, cancelled or given up. Given up means the turn ended
 * without an ack: the lease was lost (the driver's lease set aborts `handlerAbort` with `lease_lost`),
 * or the driver stopped and the handler did not finish within the shutdown grace. Cancelled means the
 * driver aborted `handlerAbort` with a `CancelledError`: the turn then waits for the handler to settle
 * (at most the shutdown grace), whatever it returns or throws. Once `handlerAbort` has aborted,
 * `ctx.reply` throws its reason and posts nothing. Every request of the handler's context carries the
 * turn's trace context (its span's, else the event's); the handler runs with the span active. It never acks, never renews (the driver's lease set
 * does, for every event it holds) and never throws.
 */
import { type CapClient, tracedClient } from "../../client.js";
import type { EventHandler, HandlerContext, HandlerResult } from "../../driver-types.js";
import { CancelledError, CapHttpError, CapSdkError } from "../../errors.js";
import type { Event, TraceContext } from "../../types.js";
import { fnv1a, type Sleep } from "../client/time.js";
import { validTraceContext } from "../client/trace-headers.js";
import type { TurnSpan } from "./spans.js";

export type TurnOutcome =
  | { kind: "done"; value: HandlerResult }
  | { kind: "failed"; error: unknown }
  /** The event was cancelled; `settled` is false when the handler outlived the shutdown grace. */
  | { kind: "cancelled"; error: CancelledError; settled: boolean }
  /** `lost`: the lease was lost; `stopped`: the shutdown grace ran out. */
  | { kind: "given_up"; why: "lost" | "stopped" };

export interface Turn {
  event: Event;
  handler: EventHandler;
  client: CapClient;
  /** The event's span, when OpenTelemetry is present. */
  span: TurnSpan | undefined;
  /** Aborted to give the turn up (lease lost, shutdown grace over); its reason reaches the handler. */
  handlerAbort: AbortController;
  /** The driver's stop signal: starts the shutdown grace. */
  stop: AbortSignal;
  sleep: Sleep;
  shutdownTimeoutMs: number;
  /** A reply was posted (id "" when the kernel refused a reworded repeat of an earlier reply). */
  onPosted(id: string): void;
}

const RELEASED = Symbol("released");
/** The reason the shutdown grace is cancelled with: a constant, so no DOMException is built. */
const TURN_OVER = Symbol("turn over");

/** The `Idempotency-Key` of the n-th reply to an event: the same on every delivery of it. */
export function replyKey(eventId: string, n: number): string {
  return `cap-sdk-reply:${fnv1a(eventId).toString(16)}:${n}:${encodeURIComponent(eventId).slice(0, 200)}`;
}

function contextFor(turn: Turn): HandlerContext {
  const { event, client, handlerAbort, onPosted, span } = turn;
  let replies = 0;
  const traceOf = (): TraceContext | undefined =>
    span ? span.current() : validTraceContext(event.traceContext);
  // Built on first use, and only for an event with a trace: the driver's own client otherwise.
  let view: CapClient | undefined;
  return {
    signal: handlerAbort.signal,
    get client() {
      if (!span && !event.traceContext) return client;
      view ??= tracedClient(client, traceOf);
      return view;
    },
    get traceContext() {
      return traceOf();
    },
    reply: async (content, options = {}) => {
      // After a cancel (or a lost lease) this event's posts are over: throw before anything is sent.
      if (handlerAbort.signal.aborted) throw handlerAbort.signal.reason;
      const fromPayload = typeof event.payload.messageId === "string" ? event.payload.messageId : undefined;
      const replyTo =
        options.replyToMessageId === undefined ? fromPayload : (options.replyToMessageId ?? undefined);
      const message = {
        content,
        ...(replyTo ? { replyToMessageId: replyTo } : {}),
        ...(options.metadata ? { metadata: options.metadata } : {}),
      };
      try {
        const posted = await client.postMessage(event.podId, message, {
          idempotencyKey: replyKey(event.id, replies++),
          signal: handlerAbort.signal,
          traceContext: traceOf(),
        });
        onPosted(posted.id);
        return posted;
      } catch (error) {
        // A redelivered handler that words its reply differently: the reply was posted before.
        if (error instanceof CapHttpError && error.code === "idempotency_key_reused") {
          const id = typeof error.details?.messageId === "string" ? error.details.messageId : "";
          onPosted(id);
          return { id, createdAt: "", replayed: true };
        }
        throw error;
      }
    },
  };
}

/** Waits for a cancelled handler to settle, at most `shutdownTimeoutMs`; true when it did. */
async function settles(handler: Promise<unknown>, turn: Turn): Promise<boolean> {
  const grace = new AbortController();
  const settled = handler.then(
    () => true,
    () => true,
  );
  const timedOut = turn.sleep(turn.shutdownTimeoutMs, grace.signal).then(() => false);
  try {
    return await Promise.race([settled, timedOut]);
  } finally {
    grace.abort(TURN_OVER);
  }
}

function givenUp(signal: AbortSignal): TurnOutcome {
  const reason = signal.reason as { code?: unknown } | undefined;
  return { kind: "given_up", why: reason?.code === "lease_lost" ? "lost" : "stopped" };
}

export async function runTurn(turn: Turn): Promise<TurnOutcome> {
  const { handlerAbort, stop } = turn;
  // Built only when the driver stops during the turn: per event it would cost a controller and, on
  // abort, a DOMException.
  let done: AbortController | undefined;
  const onStop = () => {
    const grace = new AbortController();
    done = grace;
    void turn.sleep(turn.shutdownTimeoutMs, grace.signal).then(() => {
      if (!grace.signal.aborted && !handlerAbort.signal.aborted)
        handlerAbort.abort(new CapSdkError("aborted", "the driver stopped before the handler finished"));
    });
  };
  if (stop.aborted) onStop();
  else stop.addEventListener("abort", onStop, { once: true });
  const released = new Promise<typeof RELEASED>((resolve) => {
    if (handlerAbort.signal.aborted) resolve(RELEASED);
    handlerAbort.signal.addEventListener("abort", () => resolve(RELEASED), { once: true });
  });
  const context = contextFor(turn);
  const { span } = turn;
  const handler = Promise.resolve().then(() =>
    span ? span.run(() => turn.handler(turn.event, context)) : turn.handler(turn.event, context),
  );
  try {
    const value = await Promise.race([handler, released]);
    if (value !== RELEASED) return { kind: "done", value };
    const reason: unknown = handlerAbort.signal.reason;
    if (reason instanceof CancelledError)
      return { kind: "cancelled", error: reason, settled: await settles(handler, turn) };
    return givenUp(handlerAbort.signal);
  } catch (error) {
    const reason: unknown = handlerAbort.signal.reason;
    if (reason instanceof CancelledError) return { kind: "cancelled", error: reason, settled: true };
    return handlerAbort.signal.aborted ? givenUp(handlerAbort.signal) : { kind: "failed", error };
  } finally {
    done?.abort(TURN_OVER);
    stop.removeEventListener("abort", onStop);
  }
}
