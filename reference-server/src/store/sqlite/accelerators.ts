/**
 * What makes the SQLite store fast, in the order applied; each is a named replacement of parts of the
 * plain store (kit.ts) with its own "Must never" and its own test. `openSqliteStore({ accelerate: false })`
 * (`cap-kernel serve --no-accelerate`) runs the plain store: every op under the lock, one commit each.
 * The figures behind each: docs/benchmarks.md, "Why the hot path looks like this".
 */
import { groupCommitAccelerator } from "./group-commit.js";
import { idleAgentsAccelerator } from "./idle-agents.js";
import { installationCacheAccelerator } from "./installation-cache.js";
import type { SqliteAccelerator } from "./kit.js";

export const SQLITE_ACCELERATORS: readonly SqliteAccelerator[] = [
  installationCacheAccelerator, // active installations from memory
  idleAgentsAccelerator, // an idle agent's claim answered without the lock
  groupCommitAccelerator, // the queue's hot writes and every transaction, one commit per event-loop turn
];
