/**
 * What makes the PostgreSQL store fast, in the order applied; each is a named replacement of parts of the
 * plain store (kit.ts) with its own "Must never" and its own test. `openPostgresStore({ accelerate: false })`
 * (`cap-kernel serve --no-accelerate`) runs the plain store: each claim reads from the agent's first
 * pending event, each ack is its own statement. The figures behind each: docs/benchmarks.md, "Why the hot
 * path looks like this".
 *
 * The ack batcher is not SQLite's group commit: it keeps one statement in flight and sends the next as
 * soon as that one returns (round trips are the limit here), where group commit writes one transaction
 * per event-loop turn of any op (commits are the limit there); a shared coalescer would fit neither.
 */
import { ackBatcher } from "./ack-batcher.js";
import { claimFloors } from "./claim-floors.js";
import type { PostgresAccelerator } from "./kit.js";

export const claimFloorsAccelerator: PostgresAccelerator = {
  name: "claim-floors",
  apply: (kit) => {
    kit.floors = claimFloors();
  },
};

export const ackBatcherAccelerator: PostgresAccelerator = {
  name: "ack-batcher",
  apply: (kit) => {
    kit.acks = ackBatcher(kit.hold);
  },
};

export const POSTGRES_ACCELERATORS: readonly PostgresAccelerator[] = [
  claimFloorsAccelerator, // a claim starts reading at the agent's last known lowest pending event
  ackBatcherAccelerator, // concurrent acks share one statement and its commit
];
