/**
 * The shared store contract suite on PostgreSQL. Each test opens a store in a schema of its own (fresh
 * tables, migrations applied), so tests and test files never see each other's rows; the schemas are
 * dropped at the end. It runs twice: on the accelerated store and on the plain one. Needs a real server: CAP_TEST_PG_URL (`.ci/run` starts a throwaway cluster).
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, describe } from "vitest";
import { openPostgresStore } from "../../src/store/postgres/index.js";
import { runStoreContract } from "./contract-suite.js";

const url = process.env.CAP_TEST_PG_URL;
const skipped = url ? "" : " (skipped: CAP_TEST_PG_URL not set — .ci/run starts PostgreSQL)";

describe.skipIf(!url)(`postgres store${skipped}`, () => {
  const schemas: string[] = [];
  afterAll(async () => {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    for (const s of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
    await admin.end();
  });

  // The accelerated store (what serve runs) and the plain one (--no-accelerate) keep the same contract.
  for (const accelerate of [true, false]) {
    runStoreContract(
      async () => {
        const schema = `cap_contract_${randomBytes(5).toString("hex")}`;
        schemas.push(schema);
        return openPostgresStore({ url: url!, schema, poolSize: 12, accelerate });
      },
      accelerate ? "postgres" : "postgres plain",
    );
  }
});
