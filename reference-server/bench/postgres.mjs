/**
 * PostgreSQL for the bench: the server named by CAP_BENCH_PG_URL (or CAP_TEST_PG_URL), else a throwaway
 * cluster of our own (Debian's pg_createcluster, as the CI notes describe), else none — and then the
 * PostgreSQL figures are reported as skipped, never guessed. Each scenario gets its own database
 * (`bench_<pid>_<n>`), dropped at exit, so the bench never disturbs other users of a shared server.
 * Must never drop a database or cluster it did not create.
 */
import { execFileSync } from "node:child_process";
import pg from "pg";
import { freePort, onCleanup } from "./children.mjs";

function which(cmd) {
  try {
    execFileSync("sh", ["-c", `command -v ${cmd}`], { stdio: "pipe" });
    return true;
  } catch {
    return false;
  }
}

/** Resolves {adminUrl, source} or {skipped: reason}. */
export async function findPostgres() {
  const fromEnv = process.env.CAP_BENCH_PG_URL ?? process.env.CAP_TEST_PG_URL;
  if (fromEnv) return { adminUrl: fromEnv, source: "CAP_BENCH_PG_URL/CAP_TEST_PG_URL" };
  if (!which("pg_createcluster") || process.getuid?.() !== 0) {
    return {
      skipped: "no PostgreSQL: CAP_BENCH_PG_URL is unset and pg_createcluster (as root) is unavailable",
    };
  }
  const versions = execFileSync("sh", ["-c", "ls /usr/lib/postgresql"], { encoding: "utf8" })
    .split(/\s+/)
    .filter(Boolean);
  const version = versions.sort((a, b) => Number(b) - Number(a))[0];
  const name = `capbench${process.pid}`;
  const port = await freePort();
  try {
    execFileSync(
      "pg_createcluster",
      [version, name, "--port", String(port), "--start", "--", "--auth-local=trust", "--auth-host=trust"],
      { stdio: "pipe" },
    );
  } catch (err) {
    return {
      skipped: `no PostgreSQL: pg_createcluster failed (${String(err.stderr ?? err.message)
        .trim()
        .slice(0, 200)})`,
    };
  }
  onCleanup(() => execFileSync("pg_dropcluster", ["--stop", version, name], { stdio: "pipe" }));
  return {
    adminUrl: `postgres://postgres@127.0.0.1:${port}/postgres`,
    source: `throwaway cluster ${version}/${name}`,
  };
}

let counter = 0;

/** Creates a fresh database on the server; resolves its URL. Dropped at exit. */
export async function createDatabase(adminUrl) {
  const name = `bench_${process.pid}_${++counter}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  onCleanup(async () => {
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    try {
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    } finally {
      await c.end();
    }
  });
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
