import { DELIVERED_EVENT_COLUMNS } from "../schema.js";
import { ACK_SQL } from "./events.js";
import { json, toDeliveredEvent } from "./rows.js";
/** The delivery named by `attempts` holds the lease: the fence renew and release share. */
const HELD = `state = 'leased' AND lease_expires_at > @now
  AND (release_attempts IS NULL OR release_attempts <> attempts)`;
export function deliveryOps({ db, notify }) {
    const q = {
        get: db.prepare("SELECT agent_id FROM events WHERE id = ?"),
        release: db.prepare(`UPDATE events SET lease_expires_at = @availableAt, available_at = @availableAt,
         release_attempts = attempts, release_reason = @reason
       WHERE id = @id AND agent_id = @agentId AND attempts = @attempts AND ${HELD}
         AND attempts - attempt_base < @maxAttempts`),
        releaseLast: db.prepare(`UPDATE events SET state = 'failed', failed_at = @now, fail_reason = 'released', lease_expires_at = @now,
         release_attempts = attempts, release_reason = @reason
       WHERE id = @id AND agent_id = @agentId AND attempts = @attempts AND ${HELD}
         AND attempts - attempt_base >= @maxAttempts`),
        ack: db.prepare(ACK_SQL),
        own: db.prepare("SELECT 1 FROM events WHERE id = ? AND agent_id = ?"),
        pollDeliveries: db.prepare(`SELECT ${DELIVERED_EVENT_COLUMNS.sqlite} FROM events e INDEXED BY events_poll JOIN event_payloads p ON p.seq = e.seq
       WHERE agent_id = @agentId AND poll_id = @pollId AND state = 'leased' AND poll_id IS NOT NULL
         AND poll_attempts = attempts AND ${HELD}
       ORDER BY e.seq`),
        tag: db.prepare("UPDATE events SET poll_id = @pollId, poll_attempts = attempts WHERE id = @id AND agent_id = @agentId"),
    };
    const releaseTx = db.transaction((input) => {
        const args = {
            id: input.eventId,
            agentId: input.agentId,
            attempts: input.attempts,
            now: input.now,
            availableAt: input.availableAt,
            maxAttempts: input.maxAttempts,
            reason: input.reason,
        };
        if (q.release.run(args).changes === 1) {
            notify(input.agentId);
            return { status: "released", availableAt: input.availableAt };
        }
        if (q.releaseLast.run(args).changes === 1)
            return { status: "failed" };
        const row = q.get.get(input.eventId);
        return !row || row.agent_id !== input.agentId ? { status: "not_found" } : { status: "lease_lost" };
    });
    const ackManyTx = db.transaction(({ agentId, items, now }) => items.map(({ eventId, result }) => {
        if (q.ack.run(now, json(result), eventId, agentId).changes === 1)
            return true;
        return q.own.get(eventId, agentId) !== undefined;
    }));
    const tagTx = db.transaction(({ agentId, pollId, eventIds }) => {
        for (const id of eventIds)
            q.tag.run({ id, agentId, pollId });
    });
    return {
        releaseEvent: (input) => releaseTx(input),
        ackEvents: (input) => ackManyTx(input),
        // One writer at a time (BEGIN IMMEDIATE) already serialises callers with the same pollId.
        findPollDeliveries: (input) => q.pollDeliveries.all(input).map(toDeliveredEvent),
        tagPollDeliveries: (input) => {
            if (input.eventIds.length > 0)
                tagTx(input);
        },
    };
}
//# sourceMappingURL=deliveries.js.map