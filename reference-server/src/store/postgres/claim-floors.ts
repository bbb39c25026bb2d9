/**
 * Where each agent's claim may start reading `events_pending`: a lower bound on the seq of the agent's
 * pending events, per store (per replica), learnt from the agent's previous claim. (Ended leases are read
 * from `events_leased` without a floor.)
 *
 * Why: every claim and ack on PostgreSQL leaves the row's older versions behind, and their entries stay in
 * `events_pending` until VACUUM. A claim that reads the agent's range from its start walks every one of
 * them, so its cost grew with the events the agent had drained since the last VACUUM (docs/benchmarks.md,
 * "Why the hot path looks like this").
 *
 * Why a bound from the last claim holds: an event leaves the pending set by claim, ack, failure or cancel, and
 * enters it only by enqueue (a new, higher seq) or requeue (an old seq). The floor is the lowest pending
 * seq the claim's own snapshot saw. A pending event below it can only come from a write that snapshot did
 * not see — an enqueue whose seq was drawn before a later-drawn one committed, or a requeue — and each
 * such write wakes the agent (locally after commit, on other replicas through NOTIFY), which drops the
 * floor here. A claim that started before such a drop does not install its floor (the generation check).
 * What may still be missed — a NOTIFY lost with the LISTEN connection — is covered three ways: a reconnect
 * drops every floor, the wake hub's backstop (readyInstants, which reads without a floor) drops the floor
 * of each agent it finds with a pending event, and a floor is used for at most `maxAgeMs` after the claim
 * that read the agent's range from its start (the floors learnt from it by later claims keep that claim's
 * age, so a driver that claims without pause still reads from the start every `maxAgeMs`).
 *
 * Must never: raise a floor above a pending event that its claim's snapshot saw, or read the clock (ages are
 * measured in the service's `now`, passed to each claim).
 */
export interface ClaimFloors {
  /**
   * Where this agent's claim at `now` may start (0: from the start), and what to give `learn` afterwards:
   * the generation, and since when the floor's line of claims has not read from the start.
   */
  start(agentId: string, now: number): ClaimStart;
  /** Records the lowest pending seq a claim saw, unless the agent was woken since that claim started. */
  learn(agentId: string, start: ClaimStart, seq: number): void;
  /** The agent may have a pending event below its floor (it was woken): its next claim reads from the start. */
  drop(agentId: string): void;
  /** Wake-ups may have been missed: every agent's next claim reads from the start. */
  dropAll(): void;
}

export interface ClaimStart {
  from: number;
  generation: number;
  since: number;
}

/** How long a learnt floor is used; past it the claim reads from the start again and learns anew. */
export const FLOOR_MAX_AGE_MS = 5000;

export function claimFloors(maxAgeMs = FLOOR_MAX_AGE_MS): ClaimFloors {
  const floors = new Map<string, { seq: number; at: number }>();
  const generations = new Map<string, number>();
  let epoch = 0; // bumped by dropAll; part of every generation
  const generationOf = (agentId: string) => epoch * 2 ** 26 + (generations.get(agentId) ?? 0);

  return {
    start(agentId, now) {
      const f = floors.get(agentId);
      const fresh = f !== undefined && now - f.at <= maxAgeMs && now >= f.at;
      return fresh
        ? { from: f.seq, generation: generationOf(agentId), since: f.at }
        : { from: 0, generation: generationOf(agentId), since: now };
    },
    learn(agentId, { generation, since }, seq) {
      if (generation === generationOf(agentId)) floors.set(agentId, { seq, at: since });
    },
    drop(agentId) {
      floors.delete(agentId);
      generations.set(agentId, ((generations.get(agentId) ?? 0) + 1) % 2 ** 26);
    },
    dropAll() {
      floors.clear();
      generations.clear();
      epoch++;
    },
  };
}

/** The plain store's floors: every claim reads the agent's range from its start. */
export function noFloors(): ClaimFloors {
  return {
    start: (_agentId, now) => ({ from: 0, generation: 0, since: now }),
    learn: () => undefined,
    drop: () => undefined,
    dropAll: () => undefined,
  };
}
