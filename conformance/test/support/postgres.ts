/**
 * Test helper: a fresh PostgreSQL database per test run on the throwaway cluster `.ci/run` starts
 * (`CAP_TEST_PG_URL`). Without that variable the PostgreSQL tests are skipped, saying why.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";

export const pgUrl = process.env.CAP_TEST_PG_URL;
export const pgSkipReason =
  "skipped: CAP_TEST_PG_URL is not set (.ci/run starts a throwaway PostgreSQL cluster)";

export async function freshDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  if (!pgUrl) throw new Error(pgSkipReason);
  const name = `cap_conformance_${randomBytes(5).toString("hex")}`;
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(pgUrl);
  url.pathname = `/${name}`;
  return {
    url: url.href,
    async drop() {
      const c = new pg.Client({ connectionString: pgUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}
