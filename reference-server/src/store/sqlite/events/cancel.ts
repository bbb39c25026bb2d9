/**
 * SQLite cancel (feature `cancel`): an open event becomes terminal `cancelled`, recording the delivery
 * held at that moment; the double-texting cancel of the deliveries agents hold in a pod; the watch's read
 * of one delivery; and which watched events are cancelled (the watch hub's sweep after another process's
 * commit). Every cancel is announced after commit (`cancelled`, changes.ts).
 *
 * Must never: cancel a settled event (acked, failed or cancelled), cancel an exhausted lease (it is
 * retired as failed first, as a claim would), or announce a cancel that did not commit.
 */
import type { CancellationState, CancelResult } from "../../contract.js";
import {
  CANCEL,
  CANCELLED,
  CANCELLED_DELIVERY,
  EXHAUSTED,
  FENCE,
  HELD,
  OPEN,
  RETIRE,
} from "../lease-rules.js";
import type { SqliteContext, SyncOps } from "../types.js";

type CancelOps = Pick<SyncOps, "cancelEvent" | "cancelHeldEvents" | "cancellationOf" | "cancelledAmong">;

const SET_CANCEL = CANCEL("@now", "@reason", "@byKind", "@byId");

export function cancelOps({ db, cancelled }: SqliteContext): CancelOps {
  const q = {
    target: db.prepare(
      `SELECT agent_id, pod_id, state FROM events
        WHERE id = @id AND (@agentId IS NULL OR agent_id = @agentId) AND (@podId IS NULL OR pod_id = @podId)`,
    ),
    retire: db.prepare(`UPDATE events SET ${RETIRE} WHERE id = @id AND ${EXHAUSTED("@now", "@maxAttempts")}`),
    cancel: db.prepare(`UPDATE events SET ${SET_CANCEL} WHERE id = @id AND ${OPEN}`),
    // The agent's running leases (events_leased): a driver holds few at a time.
    cancelHeld: db
      .prepare(
        `UPDATE events INDEXED BY events_leased SET ${SET_CANCEL}
          WHERE agent_id = @agentId AND ${HELD("@now")} AND pod_id = @podId
          RETURNING id`,
      )
      .pluck(),
    watch: db.prepare(
      `SELECT CASE WHEN ${CANCELLED_DELIVERY("@attempts")} THEN 'cancelled'
                   WHEN ${FENCE("@attempts", "@now")} THEN 'held'
                   ELSE 'lease_lost' END AS status,
              cancel_reason, cancelled_at, lease_expires_at
         FROM events WHERE id = @id AND agent_id = @agentId`,
    ),
    among: db
      .prepare(`SELECT id FROM events WHERE id IN (SELECT value FROM json_each(?)) AND ${CANCELLED}`)
      .pluck(),
  };

  const cancelTx = db.transaction((input: Parameters<SyncOps["cancelEvent"]>[0]): CancelResult => {
    const target = q.target.get({
      id: input.eventId,
      agentId: input.agentId ?? null,
      podId: input.podId ?? null,
    }) as { agent_id: string; pod_id: string; state: string } | undefined;
    if (!target) return { status: "not_found" };
    const where = { agentId: target.agent_id, podId: target.pod_id };
    if (q.retire.run({ id: input.eventId, now: input.now, maxAttempts: input.maxAttempts }).changes === 1)
      return { status: "failed", changed: false, ...where };
    const args = {
      id: input.eventId,
      now: input.now,
      reason: input.reason,
      byKind: input.by.kind,
      byId: input.by.id,
    };
    if (q.cancel.run(args).changes === 1) {
      cancelled(target.agent_id, input.eventId);
      return { status: "cancelled", changed: true, ...where };
    }
    // Not open, so settled: the state it settled in.
    return { status: target.state as "cancelled" | "acked" | "failed", changed: false, ...where };
  });

  const cancelHeldTx = db.transaction((input: Parameters<SyncOps["cancelHeldEvents"]>[0]) => {
    const out: { agentId: string; eventId: string }[] = [];
    for (const agentId of new Set(input.agentIds)) {
      const ids = q.cancelHeld.all({
        agentId,
        podId: input.podId,
        now: input.now,
        reason: input.reason,
        byKind: input.by.kind,
        byId: input.by.id,
      }) as string[];
      for (const eventId of ids) {
        cancelled(agentId, eventId);
        out.push({ agentId, eventId });
      }
    }
    return out;
  });

  return {
    cancelEvent: (input) => cancelTx(input),
    cancelHeldEvents: (input) => (input.agentIds.length === 0 ? [] : cancelHeldTx(input)),
    cancellationOf: ({ agentId, eventId, attempts, now }): CancellationState => {
      const r = q.watch.get({ id: eventId, agentId, attempts, now }) as
        | { status: string; cancel_reason: string; cancelled_at: number; lease_expires_at: number }
        | undefined;
      if (!r) return { status: "not_found" };
      if (r.status === "cancelled")
        return { status: "cancelled", reason: r.cancel_reason, cancelledAt: r.cancelled_at };
      if (r.status === "held") return { status: "held", leaseExpiresAt: r.lease_expires_at };
      return { status: "lease_lost" };
    },
    cancelledAmong: (eventIds) =>
      eventIds.length === 0 ? [] : (q.among.all(JSON.stringify(eventIds)) as string[]),
  };
}
