/**
 * PostgreSQL for tests. `freshPgSchema()`: an empty schema of a test's own on the shared server
 * (`CAP_TEST_PG_URL`), as a `--db` URL (`?schema=`). `PgCluster`: a throwaway cluster of a test's own,
 * which it may stop and start (never the shared one) — the kernel's and the CLI's store-outage tests
 * restart it under load: `pg_createcluster` on a free port, as root on Debian (CI); elsewhere
 * `clusterUnavailable` says why not.
 * Must never: touch a cluster or schema it did not create, or leave one behind (`drop()` in afterAll).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import { importOptional } from "./optional.js";
import { freePort } from "./process.js";

function which(cmd: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${cmd}`]).status === 0;
}

export const clusterUnavailable: string | null =
  process.getuid?.() !== 0
    ? "not root (pg_createcluster needs root; CI runs as root)"
    : !which("pg_createcluster") || !existsSync("/usr/lib/postgresql")
      ? "pg_createcluster not installed (Debian's postgresql package)"
      : null;

export class PgCluster {
  private constructor(
    readonly version: string,
    readonly name: string,
    readonly port: number,
  ) {}

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  static async create(): Promise<PgCluster> {
    const version = readdirSync("/usr/lib/postgresql")
      .sort((a, b) => Number(a) - Number(b))
      .at(-1)!;
    const c = new PgCluster(version, `cap-outage-${randomBytes(3).toString("hex")}`, await freePort());
    execFileSync(
      "pg_createcluster",
      [version, c.name, "--port", String(c.port), "--start", "--", "--auth-local=trust", "--auth-host=trust"],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    return c;
  }

  private ctl(action: "stop" | "start"): void {
    const mode = action === "stop" ? ["--", "-m", "fast"] : [];
    execFileSync("pg_ctlcluster", [this.version, this.name, action, ...mode], {
      stdio: ["ignore", "ignore", "pipe"],
    });
  }

  /** Stops the server (fast shutdown: sessions are terminated); resolves when it is down. */
  stop(): void {
    this.ctl("stop");
  }

  /** Starts it again; resolves when it accepts connections. */
  start(): void {
    this.ctl("start");
  }

  drop(): void {
    spawnSync("pg_dropcluster", ["--stop", this.version, this.name], { stdio: "ignore" });
  }
}

/** The shared test server (`CAP_TEST_PG_URL`), or undefined: PostgreSQL tests then skip, saying why. */
export const pgTestUrl: string | undefined = process.env.CAP_TEST_PG_URL || undefined;
export const pgSkipReason = "skipped: CAP_TEST_PG_URL is not set (.ci/run starts a throwaway PostgreSQL)";

/** A fresh schema on `base` (default `CAP_TEST_PG_URL`): `url` carries `?schema=`, `drop()` removes it. */
export async function freshPgSchema(
  prefix = "cap_test",
  base = pgTestUrl,
): Promise<{ url: string; schema: string; drop(): Promise<void> }> {
  if (!base) throw new Error(pgSkipReason);
  const schema = `${prefix}_${randomBytes(5).toString("hex")}`;
  const url = new URL(base);
  url.searchParams.set("schema", schema);
  return {
    url: url.toString(),
    schema,
    async drop() {
      // pg is an optional peer of the kernel: loaded only by a test that uses PostgreSQL.
      const { default: pg } = await importOptional<typeof import("pg")>(
        "pg",
        "^8.11.0",
        "@commonly/cap-kernel/testing (freshPgSchema)",
      );
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      try {
        await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      } finally {
        await c.end();
      }
    },
  };
}
