/**
 * The parts of an open PostgreSQL store that its accelerators (accelerators.ts) may replace: where a
 * claim starts reading, and how acks are written. The plain store is this kit with nothing replaced.
 */
import type { HeldConnection } from "./ack-batcher.js";
import type { ClaimFloors } from "./claim-floors.js";
import type { WriteAcks } from "./events/settle.js";

export interface PostgresKit {
  /** Where each agent's claim may start reading; plain: from the start. */
  floors: ClaimFloors;
  /** How acks outside a transaction are written; plain (undefined): one statement per call. */
  acks: WriteAcks | undefined;
  /** A pool connection held for a run of statements (the ack batcher's). */
  readonly hold: () => Promise<HeldConnection>;
}

/** An accelerator: a named replacement of some of the kit's parts (see accelerators.ts). */
export interface PostgresAccelerator {
  readonly name: string;
  apply(kit: PostgresKit): void;
}
