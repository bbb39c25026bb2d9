/**
 * The queue verbs beside poll, ack and renew (events.ts): release (a delivery given back, ready again after
 * a delay) and batch ack (one transaction, per-item results).
 * Must never: settle part of a batch, or release a delivery the caller does not hold.
 */

import type { components as Cap } from "@commonly/cap-spec/types/cap";
import { fail } from "../errors/registry.js";
import type { AgentCaller, ServiceDeps } from "./deps.js";
import type { EventsObserver } from "./events-observer.js";
import { leaseLost } from "./lease-lost.js";

/**
 * The spec's ReleaseRequest, with `delaySeconds` optional as it is on the wire: its default (0) is not
 * filled by the body validator, while the generated type (openapi-typescript's defaultNonNullable, kept
 * for the SDK's public types) calls it required.
 */
export type ReleaseBody = Omit<Cap["schemas"]["ReleaseRequest"], "delaySeconds"> &
  Partial<Pick<Cap["schemas"]["ReleaseRequest"], "delaySeconds">>;

export type ReleaseAnswer = { status: "pending"; availableAt: number } | { status: "failed" };

export type BatchAckItem = Cap["schemas"]["BatchAckItem"];

export type BatchAckResult = { id: string; ok: true } | { id: string; ok: false; code: "event_not_found" };

export function queueVerbs({ store, config, clock }: ServiceDeps, observer: EventsObserver) {
  return {
    async release(caller: AgentCaller, eventId: string, body: ReleaseBody): Promise<ReleaseAnswer> {
      const now = clock.now();
      const r = await store.releaseEvent({
        agentId: caller.agentId,
        eventId,
        attempts: body.attempts,
        availableAt: now + (body.delaySeconds ?? 0) * 1000,
        reason: body.reason ?? null,
        maxAttempts: config.maxAttempts,
        now,
      });
      if (r.status === "not_found") fail("event_not_found");
      if (r.status === "lease_lost") leaseLost(r);
      if (r.status === "failed") {
        observer.deadLettered(1);
        return { status: "failed" };
      }
      return { status: "pending", availableAt: r.availableAt };
    },

    async ackMany(caller: AgentCaller, acks: BatchAckItem[]): Promise<BatchAckResult[]> {
      const found = await store.ackEvents({
        agentId: caller.agentId,
        items: acks.map((a) => ({ eventId: a.id, result: a.result ?? null })),
        now: clock.now(),
      });
      return acks.map((a, i) =>
        found[i] ? { id: a.id, ok: true } : { id: a.id, ok: false, code: "event_not_found" },
      );
    },
  };
}
