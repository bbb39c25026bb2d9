/**
 * The event queue on SQLite, one module per verb group in `events/`: an event enters the ready set by
 * enqueue or requeue (`enqueue.ts`), is leased by a claim that first retires the agent's exhausted leases
 * (`claim.ts`, with the replay of a poll named by `pollId`), and is settled by its holder — ack, batch
 * ack, renew, release (`settle.ts`) — or leaves as failed (`retire.ts`) or cancelled (`cancel.ts`); `history.ts` reads what the trace view shows;
 * `reads.ts` answers when an
 * agent's events become ready and the queue's views. What ready, held, exhausted and the delivery fence
 * mean is written once, in `lease-rules.ts`; every statement here is composed from those names.
 */
import type { EventOpName } from "../contract.js";
import { cancelOps } from "./events/cancel.js";
import { claimOps } from "./events/claim.js";
import { enqueueOps } from "./events/enqueue.js";
import { historyOps } from "./events/history.js";
import { readOps } from "./events/reads.js";
import { retireOps } from "./events/retire.js";
import { settleOps } from "./events/settle.js";
import type { SqliteContext, SyncOps } from "./types.js";

export function eventOps(ctx: SqliteContext): Pick<SyncOps, EventOpName> {
  return {
    ...enqueueOps(ctx),
    ...claimOps(ctx),
    ...settleOps(ctx),
    ...retireOps(ctx),
    ...readOps(ctx),
    ...cancelOps(ctx),
    ...historyOps(ctx),
  };
}
