/**
 * SQLite ops for the queue verbs added after the first release: release (a delivery given back, ready
 * again at `availableAt`), batch ack (one transaction), and the deliveries of a `pollId` (retry-safe polls).
 * A released delivery keeps state `leased` with its lease moved to `availableAt` and `release_attempts =
 * attempts`, so claim, retire and lease-expiry wake-ups need no change (see migrations/002).
 */
import type { DeliveryOpName, ReleaseResult } from "../contract.js";
import { DELIVERED_EVENT_COLUMNS } from "../schema.js";
import { ACK_SQL } from "./events.js";
import { ATTEMPTS_LEFT, BUDGET_USED, FAIL, FENCE, LEASED, MARK_RELEASED } from "./lease-rules.js";
import { json, type Row, toDeliveredEvent } from "./rows.js";
import type { SqliteContext, SyncOps } from "./types.js";

type DeliveryOps = Pick<SyncOps, DeliveryOpName>;

export function deliveryOps({ db, notify }: SqliteContext): DeliveryOps {
  const q = {
    get: db.prepare("SELECT agent_id FROM events WHERE id = ?"),
    release: db.prepare(
      `UPDATE events SET lease_expires_at = @availableAt, available_at = @availableAt, ${MARK_RELEASED("@reason")}
       WHERE id = @id AND agent_id = @agentId AND ${FENCE("@attempts", "@now")} AND ${ATTEMPTS_LEFT("@maxAttempts")}`,
    ),
    releaseLast: db.prepare(
      `UPDATE events SET ${FAIL("@now", "'released'")}, lease_expires_at = @now, ${MARK_RELEASED("@reason")}
       WHERE id = @id AND agent_id = @agentId AND ${FENCE("@attempts", "@now")} AND ${BUDGET_USED("@maxAttempts")}`,
    ),
    ack: db.prepare(ACK_SQL),
    own: db.prepare("SELECT 1 FROM events WHERE id = ? AND agent_id = ?"),
    pollDeliveries: db.prepare(
      `SELECT ${DELIVERED_EVENT_COLUMNS.sqlite} FROM events e INDEXED BY events_poll JOIN event_payloads p ON p.seq = e.seq
       WHERE agent_id = @agentId AND poll_id = @pollId AND ${LEASED} AND poll_id IS NOT NULL
         AND ${FENCE("poll_attempts", "@now")}
       ORDER BY e.seq`,
    ),
    tag: db.prepare(
      "UPDATE events SET poll_id = @pollId, poll_attempts = attempts WHERE id = @id AND agent_id = @agentId",
    ),
  };

  const releaseTx = db.transaction((input: Parameters<SyncOps["releaseEvent"]>[0]): ReleaseResult => {
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
    if (q.releaseLast.run(args).changes === 1) return { status: "failed" };
    const row = q.get.get(input.eventId) as Row | undefined;
    return !row || row.agent_id !== input.agentId ? { status: "not_found" } : { status: "lease_lost" };
  });

  const ackManyTx = db.transaction(({ agentId, items, now }: Parameters<SyncOps["ackEvents"]>[0]) =>
    items.map(({ eventId, result }) => {
      if (q.ack.run(now, json(result), eventId, agentId).changes === 1) return true;
      return q.own.get(eventId, agentId) !== undefined;
    }),
  );

  const tagTx = db.transaction(
    ({ agentId, pollId, eventIds }: Parameters<SyncOps["tagPollDeliveries"]>[0]) => {
      for (const id of eventIds) q.tag.run({ id, agentId, pollId });
    },
  );

  return {
    releaseEvent: (input) => releaseTx(input),
    ackEvents: (input) => ackManyTx(input),
    // One writer at a time (BEGIN IMMEDIATE) already serialises callers with the same pollId.
    findPollDeliveries: (input) => (q.pollDeliveries.all(input) as Row[]).map(toDeliveredEvent),
    tagPollDeliveries: (input) => {
      if (input.eventIds.length > 0) tagTx(input);
    },
  };
}
