/**
 * Idle agents: an agent whose claim found neither a pending nor a leased event has nothing to claim until
 * a write readies one, and every such write notifies. Its next claims (a driver waiting in long-polls with
 * nothing queued) and its next-lease look-up are answered from memory, without the lock or a batch. A
 * poll with a pollId is answered the same way: an agent holding no lease holds no delivery under any pollId.
 *
 * Must never: keep a mark past a notify of its agent, a rollback (what the claim read may be undone) or
 * another process's commit to the file (found at most LOOK_MS late), or mark an agent that holds a lease
 * (its lease ends without a write).
 */
import type { ClaimResult } from "../contract.js";
import type { SqliteAccelerator } from "./kit.js";
import { LEASED } from "./lease-rules.js";

const NOTHING: ClaimResult = Object.freeze({ events: [], expiredLeases: 0, newlyFailed: 0 });

export const idleAgentsAccelerator: SqliteAccelerator = {
  name: "idle-agents",
  apply(kit) {
    const idle = new Set<string>();
    const anyLeased = kit.db.prepare(
      `SELECT 1 FROM events INDEXED BY events_leased WHERE agent_id = ? AND ${LEASED}`,
    );
    kit.changes.onNotify((agentId) => idle.delete(agentId));
    kit.changes.undoable(() => idle.clear());
    const isIdle = (agentId: string) => {
      if (!idle.has(agentId)) return false;
      kit.changes.freshen();
      return idle.has(agentId);
    };
    const { claimEvents, nextLeaseExpiry } = kit.sync;
    kit.sync.claimEvents = (input) => {
      if (isIdle(input.agentId)) return { ...NOTHING, events: [] };
      const r = claimEvents(input);
      if (r.events.length === 0 && anyLeased.get(input.agentId) === undefined) idle.add(input.agentId);
      return r;
    };
    kit.sync.nextLeaseExpiry = (input) => (isIdle(input.agentId) ? null : nextLeaseExpiry(input));
    kit.quick.claimEvents = (input) => (isIdle(input.agentId) ? { ...NOTHING, events: [] } : undefined);
  },
};
