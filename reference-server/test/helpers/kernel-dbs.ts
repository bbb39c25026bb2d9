/**
 * The two stores a kernel test runs on, as `--db` values: SQLite in memory, and a schema of its own on
 * CAP_TEST_PG_URL (skipped, saying why, when that is not set). Each entry: name, skip reason, and a maker
 * that returns the url and its clean-up.
 */
import { freshPgSchema, pgSkipReason, pgTestUrl } from "../../src/testing/pg.js";

export type KernelDb = [
  name: string,
  skip: string | undefined,
  make: () => Promise<{ db: string; drop: () => Promise<void> }>,
];

export const kernelDbs = (schemaPrefix: string): KernelDb[] => [
  ["SQLite", undefined, async () => ({ db: "sqlite::memory:", drop: async () => {} })],
  [
    "PostgreSQL",
    pgTestUrl ? undefined : pgSkipReason,
    async () => {
      const s = await freshPgSchema(schemaPrefix);
      return { db: s.url, drop: s.drop };
    },
  ],
];
