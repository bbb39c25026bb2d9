/**
 * The queue verbs added after the first release, beside the events service: release (a delivery given
 * back, ready again after a delay), batch ack (one transaction, per-item results) and the claim of a poll
 * that carries a `pollId` (a retry answers the deliveries the first attempt made instead of claiming more).
 * Must never: settle part of a batch, or let a replayed poll claim anything.
 */
import { fail } from "../errors/registry.js";
/**
 * Claim for a poll named by `pollId`, in one transaction: while deliveries claimed under it are still
 * held, answer exactly those (same attempts, current lease); otherwise claim afresh and tag the claim.
 */
export async function claimUnderPollId({ store }, input, pollId, observer) {
    const r = await store.transaction(async (tx) => {
        const held = await tx.findPollDeliveries({ agentId: input.agentId, pollId, now: input.now });
        if (held.length > 0)
            return { events: held, expiredLeases: 0, newlyFailed: 0 };
        const claimed = await tx.claimEvents(input);
        await tx.tagPollDeliveries({ agentId: input.agentId, pollId, eventIds: claimed.events.map((e) => e.id) });
        return claimed;
    });
    // Counted once committed: a transaction that rolls back (or is run again) retired nothing.
    if (r.expiredLeases)
        observer.leaseExpired(r.expiredLeases);
    if (r.newlyFailed)
        observer.deadLettered(r.newlyFailed);
    return r.events;
}
export function deliveryVerbs({ store, config, clock }, observer) {
    return {
        async release(caller, eventId, body) {
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
            if (r.status === "not_found")
                fail("event_not_found");
            if (r.status === "lease_lost")
                fail("lease_lost");
            if (r.status === "failed") {
                observer.deadLettered(1);
                return { status: "failed" };
            }
            return { status: "pending", availableAt: r.availableAt };
        },
        async ackMany(caller, acks) {
            const found = await store.ackEvents({
                agentId: caller.agentId,
                items: acks.map((a) => ({ eventId: a.id, result: a.result ?? null })),
                now: clock.now(),
            });
            return acks.map((a, i) => found[i] ? { id: a.id, ok: true } : { id: a.id, ok: false, code: "event_not_found" });
        },
    };
}
//# sourceMappingURL=deliveries.js.map