/**
 * Events: poll (claim with leases, long-poll, the replay of a poll named by `pollId`), ack, renew (the wire
 * shape is profiles/events-answer.ts); release and batch ack in queue-verbs.ts. The lease rules and the
 * replay live in the store's claimEvents (one atomic step); this service decides timing and waiting.
 * Must never deliver an event twice inside one lease, or answer a poll after its wait has ended.
 */
import { fail } from "../errors/registry.js";
import type { DeliveredEvent } from "../store/contract.js";
import type { AgentCaller, ServiceDeps } from "./deps.js";
import { type EventsObserver, noopObserver } from "./events-observer.js";
import { leaseLost } from "./lease-lost.js";
import { createLongPollSlots } from "./long-poll-slots.js";
import { queueVerbs } from "./queue-verbs.js";
import type { Cancellation, WakeHub } from "./wake-hub.js";

export interface PollInput {
  limit: number;
  waitSeconds: number;
  /** poll-replay: a retry with the same id answers the deliveries already made under it. */
  pollId?: string;
  /** The caller is gone: stop waiting and claim nothing more (an AbortSignal will do). */
  signal?: Cancellation;
}

export function createEventsService(
  deps: ServiceDeps,
  hub: WakeHub,
  observer: EventsObserver = noopObserver,
) {
  const { store, config, clock } = deps;
  const leaseMs = Math.round(config.leaseSeconds * 1000);
  const longPolls = createLongPollSlots(config.limits.maxLongPollsPerToken);

  /** `subscribed`: 1 when the caller is a long-poll whose own waiter is already subscribed. */
  async function claim(
    agentId: string,
    limit: number,
    now = clock.now(),
    pollId?: string,
    subscribed = 0,
  ): Promise<DeliveredEvent[]> {
    // A poll with a pollId is the same one store op: it replays while that poll's deliveries are held.
    const r = await store.claimEvents({
      agentId,
      limit,
      leaseMs,
      maxAttempts: config.maxAttempts,
      now,
      pollId,
    });
    if (r.expiredLeases) observer.leaseExpired(r.expiredLeases);
    if (r.newlyFailed) observer.deadLettered(r.newlyFailed);
    const events = r.events;
    // Another poll of this agent may be waiting: the lease taken now is a ready instant it must hear of
    // (a waiting poll reads the next lease end only at its own claim, and the backstop may not sweep).
    const until = events[0]?.leaseExpiresAt;
    if (until != null && hub.waitersOf(agentId) > subscribed) hub.wakeAt(agentId, until);
    return events;
  }

  return {
    leaseMs,

    async poll(
      caller: AgentCaller,
      { limit, waitSeconds: asked, pollId, signal }: PollInput,
    ): Promise<DeliveredEvent[]> {
      // A longer wait than configured is accepted and shortened (CAP-EVT-2; CAP-POLL-4 when it is 0).
      const waitSeconds = Math.min(asked, config.maxWaitSeconds);
      if (waitSeconds <= 0 || hub.isClosed) return claim(caller.agentId, limit, undefined, pollId);
      // Throws 429 too_many_long_polls when the token's slots are all held; released in `finally`.
      const release = longPolls.take(caller.tokenId, waitSeconds * 1000);
      const deadline = performance.now() + waitSeconds * 1000;
      const waiter = hub.subscribe(caller.agentId, waitSeconds * 1000);
      try {
        for (;;) {
          waiter.reset();
          // One `now` for the claim and the lease look-up: a lease that ends between the two reads is
          // then found (and scheduled, due at once) instead of slipping past both until the backstop fires.
          const now = clock.now();
          const events = await claim(caller.agentId, limit, now, pollId, 1);
          const left = deadline - performance.now();
          if (events.length > 0 || left <= 0) return events;
          // The agent's next lease expiry goes to the process-wide scheduler (one timer for all polls); the
          // poll itself then sleeps until a wake-up or its deadline, without re-querying on a timer.
          const next = await store.nextLeaseExpiry({
            agentId: caller.agentId,
            now,
            maxAttempts: config.maxAttempts,
          });
          if (next !== null) hub.wakeAt(caller.agentId, next);
          const reason = await waiter.wait(deadline - performance.now(), signal);
          // A wait that ran out with no wake-up has nothing new to claim (every source that readies an
          // event wakes it); the driver's next poll claims anyway, so no second query per idle cycle.
          if (reason !== "woken") return [];
        }
      } finally {
        waiter.dispose();
        release();
      }
    },

    async ack(caller: AgentCaller, eventId: string, result: unknown): Promise<void> {
      const own = await store.ackEvent({
        agentId: caller.agentId,
        eventId,
        now: clock.now(),
        result: result ?? null,
      });
      if (!own) fail("event_not_found");
    },

    async renew(caller: AgentCaller, eventId: string, attempts: number): Promise<number> {
      const r = await store.renewLease({
        agentId: caller.agentId,
        eventId,
        attempts,
        leaseMs,
        now: clock.now(),
      });
      if (r.status === "not_found") fail("event_not_found");
      if (r.status === "lease_lost") leaseLost(r);
      return r.leaseExpiresAt;
    },

    ...queueVerbs(deps, observer),
  };
}

export type EventsService = ReturnType<typeof createEventsService>;
