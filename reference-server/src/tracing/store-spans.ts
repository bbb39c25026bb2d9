/**
 * Store spans, a wrapper around the store contract installed only when tracing is on: `claim` (a poll's
 * claim), `ack` (one ack or a batch), `commit` (a store transaction, BEGIN to COMMIT: a post's message and
 * its events, an install, …). Each is a child of the active span, and made only under one, so background
 * work (the idempotency prune, token touches) starts no root traces. Timed around the contract's promise,
 * which settles only once the write has committed — with the SQLite group commit, a span includes the
 * wait for the shared COMMIT. The store's `enqueueEvents` counts its events into the `send` span.
 * Must never change an op's arguments, answer or error.
 */
import { context, type Span, SpanStatusCode, type Tracer, trace } from "@opentelemetry/api";
import type { Store, StoreOps } from "../kernel.js";
import { DB_SYSTEM_NAME, MESSAGING_BATCH_MESSAGE_COUNT } from "./messaging.js";
import { activeSend } from "./send-span.js";

type Op<A extends unknown[], R> = (...args: A) => Promise<R>;

export function tracedStore(store: Store, tracer: Tracer): Store {
  const attributes = { [DB_SYSTEM_NAME]: store.kind === "postgres" ? "postgresql" : "sqlite" };

  /** `fn` inside a span `name` when a span is active; `after` adds what its answer tells. */
  const spanned =
    <A extends unknown[], R>(name: string, fn: Op<A, R>, after?: (span: Span, r: R) => void): Op<A, R> =>
    (...args) => {
      if (trace.getSpan(context.active()) === undefined) return fn(...args);
      return tracer.startActiveSpan(name, { attributes }, async (span) => {
        try {
          const r = await fn(...args);
          after?.(span, r);
          return r;
        } catch (err) {
          span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error)?.message ?? String(err) });
          throw err;
        } finally {
          span.end();
        }
      });
    };

  const counted =
    (enqueue: StoreOps["enqueueEvents"]): StoreOps["enqueueEvents"] =>
    async (events) => {
      await enqueue(events);
      const send = activeSend();
      if (send) send.events += events.length;
    };

  const inTransaction = (tx: StoreOps): StoreOps => ({ ...tx, enqueueEvents: counted(tx.enqueueEvents) });

  return {
    ...store,
    claimEvents: spanned("claim", store.claimEvents, (span, r) =>
      span.setAttribute(MESSAGING_BATCH_MESSAGE_COUNT, r.events.length),
    ),
    ackEvent: spanned("ack", store.ackEvent),
    ackEvents: spanned("ack", store.ackEvents, (span, r) =>
      span.setAttribute(MESSAGING_BATCH_MESSAGE_COUNT, r.length),
    ),
    enqueueEvents: counted(store.enqueueEvents),
    // The body runs in the caller's context: a group commit runs it from another caller's batch.
    transaction: <T>(fn: (tx: StoreOps) => Promise<T>) =>
      spanned("commit", () => {
        const caller = context.active();
        return store.transaction((tx) => context.with(caller, () => fn(inTransaction(tx))));
      })(),
  };
}
