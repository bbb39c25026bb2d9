/**
 * Cancellations (feature `cancel`): who may cancel an event — the agent itself (its own events), a human
 * member of the event's pod, an operator (a kernel admin, in any pod) — and the watch a driver holds on
 * the delivery it is working on, answered at once when that delivery was cancelled and otherwise held
 * until a cancel of it, `waitSeconds`, or a third of a lease left, then renewed. The state change is the store's (one transaction); the watch
 * waits on the process-wide CancelWatchHub, never on a timer query of its own.
 *
 * Must never: let anyone else cancel (another agent's token gets 404, a non-member human the pod's 404),
 * answer a watch for a delivery the caller does not hold (409) or after its wait ended, or leak a watch
 * slot.
 */
import { fail } from "../errors/registry.js";
import type { Canceller } from "../store/contract.js";
import { requirePodMember } from "./access.js";
import type { CancelWatchHub } from "./cancel-watch-hub.js";
import type { AgentCaller, ServiceDeps, UserCaller } from "./deps.js";
import type { EventsObserver } from "./events-observer.js";
import { createLongPollSlots } from "./long-poll-slots.js";
import type { Cancellation as Abortable } from "./wake-hub.js";

/** The reason kept when the canceller gives none. */
export const DEFAULT_CANCEL_REASON = "requested";
/** The reason of a double-texting cancel (the `interrupt` policy). */
export const SUPERSEDED = "superseded";
/** The longest a watch waits, in seconds (the spec's maximum `waitSeconds`). */
export const MAX_WATCH_SECONDS = 25;

export interface CancelAnswer {
  status: "cancelled" | "acked" | "failed";
  changed: boolean;
}

/** The watch's answer: the delivery was cancelled, or it is still held (as of the watch's read). */
export type WatchAnswer =
  | { cancelRequested: true; reason: string; requestedAt: number }
  | { cancelRequested: false; leaseExpiresAt: number };

export interface WatchInput {
  attempts: number;
  waitSeconds: number;
  /** The caller is gone: stop waiting (an AbortSignal will do). */
  signal?: Abortable;
}

/** `requested` or `superseded`: the metrics' reason class (a caller's own reason is not a label). */
export const reasonClass = (reason: string): "requested" | "superseded" =>
  reason === SUPERSEDED ? SUPERSEDED : DEFAULT_CANCEL_REASON;

export function createCancellationsService(deps: ServiceDeps, hub: CancelWatchHub, observer: EventsObserver) {
  const { store, config, clock } = deps;
  const watches = createLongPollSlots(config.limits.maxCancelWatchesPerToken, "maxCancelWatchesPerToken");
  const leaseMs = Math.round(config.leaseSeconds * 1000);

  async function cancel(
    scope: { agentId: string } | { podId: string },
    eventId: string,
    by: Canceller,
    reason: string | undefined,
  ): Promise<CancelAnswer> {
    const kept = reason === undefined || reason === "" ? DEFAULT_CANCEL_REASON : reason;
    const r = await store.cancelEvent({
      eventId,
      ...scope,
      by,
      reason: kept,
      maxAttempts: config.maxAttempts,
      now: clock.now(),
    });
    if (r.status === "not_found") fail("event_not_found");
    if (r.changed) observer.cancelled(reasonClass(kept), 1);
    return { status: r.status, changed: r.changed };
  }

  return {
    /** CAP: the agent cancels one of its own events (CAP-CANCEL-1..3). */
    asAgent: (caller: AgentCaller, eventId: string, reason?: string) =>
      cancel({ agentId: caller.agentId }, eventId, { kind: "agent", id: caller.agentId }, reason),

    /** Admin surface: a member of the pod, or a kernel admin in any pod (CAP-CANCEL-12). */
    async asHuman(user: UserCaller, podId: string, eventId: string, reason?: string) {
      const { member } = await requirePodMember(store, user, podId);
      const by: Canceller = member
        ? { kind: "human", id: user.userId }
        : { kind: "operator", id: user.userId };
      return cancel({ podId }, eventId, by, reason);
    },

    /** The cancellation watch of delivery `attempts` (CAP-CANCEL-8..11). */
    async watch(caller: AgentCaller, eventId: string, input: WatchInput): Promise<WatchAnswer> {
      const read = () =>
        store.cancellationOf({
          agentId: caller.agentId,
          eventId,
          attempts: input.attempts,
          now: clock.now(),
        });
      const answer = (s: Awaited<ReturnType<typeof read>>): WatchAnswer => {
        if (s.status === "not_found") fail("event_not_found");
        if (s.status === "lease_lost") fail("lease_lost");
        if (s.status === "cancelled")
          return { cancelRequested: true, reason: s.reason, requestedAt: s.cancelledAt };
        return { cancelRequested: false, leaseExpiresAt: s.leaseExpiresAt };
      };
      // A watch that ends without a cancel renews the delivery, so a watching driver needs no renew of its
      // own: one request per wait keeps the lease and learns of a cancel (CAP-CANCEL-9).
      const renew = async (): Promise<WatchAnswer> => {
        const r = await store.renewLease({
          agentId: caller.agentId,
          eventId,
          attempts: input.attempts,
          leaseMs,
          now: clock.now(),
        });
        if (r.status === "renewed") return { cancelRequested: false, leaseExpiresAt: r.leaseExpiresAt };
        if (r.status === "not_found") fail("event_not_found");
        // Cancelled, or lost, since the last read: answer what it is now.
        return answer(await read());
      };
      // Subscribed before the read: a cancel committed after it is not lost.
      const watcher = hub.subscribe(eventId);
      let release: (() => void) | undefined;
      try {
        watcher.reset();
        let last = answer(await read());
        if (last.cancelRequested || hub.isClosed) return last;
        // Held until the wait ends or a third of the lease is left, whichever is sooner: the renew at the
        // end then comes while the lease still runs, with time for the driver's next watch to arrive.
        const holdMs = Math.max(
          0,
          Math.min(
            Math.min(input.waitSeconds, MAX_WATCH_SECONDS) * 1000,
            last.leaseExpiresAt - clock.now() - leaseMs / 3,
          ),
        );
        if (holdMs <= 0) return await renew();
        // Throws 429 too_many_long_polls when the token's watches are all held; released in `finally`.
        release = watches.take(caller.tokenId, holdMs);
        const deadline = performance.now() + holdMs;
        for (;;) {
          const reason = await watcher.wait(deadline - performance.now(), input.signal);
          if (reason === "timer") return await renew();
          // Closed or hung up: nobody is waiting for the answer, so nothing is renewed.
          if (reason !== "woken") return last;
          watcher.reset();
          last = answer(await read());
          if (last.cancelRequested || hub.isClosed) return last;
        }
      } finally {
        watcher.dispose();
        release?.();
      }
    },
  };
}

export type CancellationsService = ReturnType<typeof createCancellationsService>;
