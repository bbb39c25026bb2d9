/**
 * The event queue on PostgreSQL, one module per verb group in `events/`: an event enters the ready set by
 * enqueue or requeue (`enqueue.ts`, NOTIFY in the same statement), is leased by the one-statement claim
 * that first retires the agent's exhausted leases (`claim.ts`, with the replay of a poll named by
 * `pollId`), and is settled by its holder — ack, batch ack, renew, release (`settle.ts`) — or leaves as
 * failed (`retire.ts`) or cancelled (`cancel.ts`); `history.ts` reads what the trace view shows; `reads.ts` answers when an agent's events become
 * ready and the queue's views.
 * What ready, held, exhausted and the delivery fence mean is written once, in `lease-rules.ts`; every
 * statement here is composed from those names.
 */
import type { EventOpName, StoreOps } from "../contract.js";
import type { Db } from "./db.js";
import { cancelOps } from "./events/cancel.js";
import { claimOps } from "./events/claim.js";
import { enqueueOps } from "./events/enqueue.js";
import { historyOps } from "./events/history.js";
import { readOps } from "./events/reads.js";
import { retireOps } from "./events/retire.js";
import { settleOps, type WriteAcks } from "./events/settle.js";

/** The queue's ops on `db`; acks one statement per call unless `acks` writes them (the pool's batcher). */
export function eventOps(db: Db, acks?: WriteAcks): Pick<StoreOps, EventOpName> {
  return {
    ...enqueueOps(db),
    ...claimOps(db),
    ...settleOps(db, acks),
    ...retireOps(db),
    ...readOps(db),
    ...cancelOps(db),
    ...historyOps(db),
  };
}
