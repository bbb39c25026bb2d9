/**
 * The claim floors' bookkeeping (src/store/postgres/claim-floors.ts), without a database: what a claim
 * starts from after each sequence of claims, wake-ups and time.
 */
import { describe, expect, it } from "vitest";
import { type ClaimStart, claimFloors } from "../../src/store/postgres/claim-floors.js";

type Step =
  | { claim: string; at: number; saw?: number } // start a claim and learn `saw` as its floor
  | { started: string; at: number } // start a claim that learns later (see `finish`)
  | { finish: string; saw: number }
  | { drop: string }
  | { dropAll: true };

describe("claim floors", () => {
  const cases: { name: string; steps: Step[]; want: Record<string, number>; at: number }[] = [
    { name: "an agent never claimed starts at 0", steps: [], want: { a: 0 }, at: 0 },
    {
      name: "a claim's floor is where the next claim starts",
      steps: [{ claim: "a", at: 0, saw: 120 }],
      want: { a: 120, b: 0 },
      at: 10,
    },
    {
      name: "a wake-up drops the agent's floor, not the others'",
      steps: [{ claim: "a", at: 0, saw: 120 }, { claim: "b", at: 0, saw: 40 }, { drop: "a" }],
      want: { a: 0, b: 40 },
      at: 10,
    },
    {
      name: "a claim that started before a wake-up learns nothing",
      steps: [{ started: "a", at: 0 }, { drop: "a" }, { finish: "a", saw: 300 }],
      want: { a: 0 },
      at: 10,
    },
    {
      name: "a wake-up of another agent does not stop a claim learning",
      steps: [{ started: "a", at: 0 }, { drop: "b" }, { finish: "a", saw: 300 }],
      want: { a: 300 },
      at: 10,
    },
    {
      name: "missed wake-ups drop every floor, and claims in flight learn nothing",
      steps: [
        { claim: "a", at: 0, saw: 120 },
        { started: "b", at: 0 },
        { dropAll: true },
        { finish: "b", saw: 80 },
      ],
      want: { a: 0, b: 0 },
      at: 10,
    },
    {
      name: "a floor older than its age limit is not used",
      steps: [{ claim: "a", at: 0, saw: 120 }],
      want: { a: 0 },
      at: 5001,
    },
    {
      name: "claims from a floor keep the age of the claim that read from the start",
      steps: [
        { claim: "a", at: 0, saw: 120 },
        { claim: "a", at: 3000, saw: 170 },
        { claim: "a", at: 4900, saw: 220 },
      ],
      want: { a: 0 },
      at: 5001,
    },
    {
      name: "after its age the next claim reads from the start, and its floor ages anew",
      steps: [
        { claim: "a", at: 0, saw: 120 },
        { claim: "a", at: 5001, saw: 90 },
      ],
      want: { a: 90 },
      at: 9000,
    },
    {
      name: "a floor from the future (the clock went back) is not used",
      steps: [{ claim: "a", at: 100, saw: 120 }],
      want: { a: 0 },
      at: 50,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const floors = claimFloors(5000);
      const inFlight = new Map<string, ClaimStart>();
      for (const s of c.steps) {
        if ("claim" in s) {
          const start = floors.start(s.claim, s.at);
          if (s.saw !== undefined) floors.learn(s.claim, start, s.saw);
        } else if ("started" in s) inFlight.set(s.started, floors.start(s.started, s.at));
        else if ("finish" in s) floors.learn(s.finish, inFlight.get(s.finish) as ClaimStart, s.saw);
        else if ("drop" in s) floors.drop(s.drop);
        else floors.dropAll();
      }
      for (const [agent, from] of Object.entries(c.want)) expect(floors.start(agent, c.at).from).toBe(from);
    });
  }
});
