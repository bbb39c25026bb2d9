/**
 * The SDK's HandledStore on top of the agent's 500-id event ring (`sessions/<name>.events.json`), so
 * a redelivered event — also one handled before a restart — is re-acked by runDriver without the
 * CLI being spawned again. The ring keeps ids only (its file format predates this loop); the ack
 * result of this process's own turns is kept in memory, and an id known only from the file is
 * re-acked as `acknowledged`.
 */
import type { AckResult, HandledStore } from "@commonly/cap-sdk";
import type { EventRing } from "../state/event-ring.js";

const RECENT_RESULTS = 100;

export function ringHandledStore(ring: EventRing): HandledStore {
  const results = new Map<string, AckResult>();
  return {
    get(eventId) {
      if (!ring.has(eventId)) return undefined;
      return results.get(eventId) ?? { outcome: "acknowledged", reason: "handled before this run" };
    },
    async set(eventId, result) {
      results.set(eventId, result);
      if (results.size > RECENT_RESULTS) results.delete(results.keys().next().value as string);
      await ring.add(eventId);
    },
  };
}
