/**
 * Process-level harness for the PostgreSQL replica, concurrency and crash tests: a throwaway database per
 * test file, `cap-kernel provision` and `cap-kernel serve` as real child processes on real sockets (the
 * built dist/bin.js; test/global-setup.ts rebuilds it when src/ is newer), and a small HTTP client.
 *
 * Must never: sleep a guessed amount (everything waits for a condition against a deadline), or leave a
 * child process or a database behind (stopAll / dropDatabase in afterAll).
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { call, kernelBin, kernelCli, type Spawned, spawnProcess } from "../../src/testing/index.js";

export { eventually } from "../../src/testing/index.js";

export const PG_URL = process.env.CAP_TEST_PG_URL;
export const SKIP_REASON = PG_URL ? "" : " (skipped: CAP_TEST_PG_URL not set — .ci/run starts PostgreSQL)";

async function admin<T>(fn: (c: pg.Client) => Promise<T>, url = PG_URL!): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** Creates an empty database for one test file; returns its URL. */
export async function createDatabase(prefix: string): Promise<string> {
  const name = `${prefix}_${randomBytes(5).toString("hex")}`;
  await admin((c) => c.query(`CREATE DATABASE "${name}"`));
  const u = new URL(PG_URL!);
  u.pathname = `/${name}`;
  return u.toString();
}

export async function dropDatabase(url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  await admin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
}

/** Runs a query against a test database (the kernel's tables live in its public schema). */
export function sql<R extends pg.QueryResultRow = pg.QueryResultRow>(
  url: string,
  text: string,
  values: unknown[] = [],
): Promise<R[]> {
  return admin(async (c) => (await c.query<R>(text, values)).rows, url);
}

export interface Provisioned {
  users: { id: string; name: string; isAdmin: boolean; token: string }[];
  pods: { id: string; name: string }[];
  agents: { name: string; instanceId: string; podId: string; pod: string; token: string; tokenId: string }[];
}

export async function provision(db: string, args: string[]): Promise<Provisioned> {
  return JSON.parse(await kernelCli(["provision", "--db", db, ...args])) as Provisioned;
}

const running = new Set<KernelProcess>();

/** One `cap-kernel serve` child process on an ephemeral port. */
export class KernelProcess {
  url = "";

  private constructor(private readonly spawned: Spawned) {}

  get proc() {
    return this.spawned.child;
  }

  get output(): string {
    return this.spawned.output();
  }

  static async start(
    db: string,
    opts: { leaseSeconds: number; maxAttempts?: number; args?: string[] },
  ): Promise<KernelProcess> {
    const args = [
      kernelBin(),
      "serve",
      "--db",
      db,
      "--port",
      "0",
      "--lease-seconds",
      String(opts.leaseSeconds),
    ];
    if (opts.maxAttempts) args.push("--max-attempts", String(opts.maxAttempts));
    args.push("--log-level", "warn", ...(opts.args ?? []));
    const k = new KernelProcess(spawnProcess(process.execPath, args, { name: "cap-kernel serve" }));
    running.add(k);
    k.url = (await k.spawned.waitForOutput(/listening on (http:\/\/\S+)/, 60_000))[1]!;
    return k;
  }

  /** SIGTERM (graceful) or SIGKILL (crash); resolves with the exit code when the process is gone. */
  async stop(signal: NodeJS.Signals = "SIGTERM"): Promise<number | null> {
    running.delete(this);
    await this.spawned.stop(20_000, signal);
    return this.spawned.exited;
  }

  async metric(name: string): Promise<number> {
    const text = await (await fetch(`${this.url}/metrics`)).text();
    const line = text.split("\n").find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
    return line ? Number(line.slice(line.lastIndexOf(" ") + 1)) : Number.NaN;
  }
}

export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((k) => k.stop("SIGKILL")));
}

export interface WireEvent {
  id: string;
  type: string;
  podId: string;
  payload: Record<string, unknown>;
  attempts: number;
  createdAt: string;
  leaseExpiresAt?: string;
}

export { call };

const CAP = "/api/agents/runtime";

export async function poll(base: string, token: string, limit: number, waitSeconds: number) {
  const r = await call(base, "GET", `${CAP}/events?limit=${limit}&waitSeconds=${waitSeconds}`, token);
  if (r.status !== 200) throw new Error(`poll answered ${r.status}: ${JSON.stringify(r.body)}`);
  return (r.body as { events: WireEvent[] }).events;
}

export async function ack(base: string, token: string, id: string) {
  return call(base, "POST", `${CAP}/events/${id}/ack`, token, { result: { outcome: "acknowledged" } });
}

/** Operator event injection through the admin surface (a human token); returns the event id. */
export async function emit(
  base: string,
  humanToken: string,
  input: { agentName: string; podId: string; payload?: Record<string, unknown> },
): Promise<string> {
  const r = await call(base, "POST", "/api/admin/events", humanToken, {
    type: "task.assigned",
    payload: {},
    ...input,
  });
  if (r.status !== 201) throw new Error(`emit answered ${r.status}: ${JSON.stringify(r.body)}`);
  return (r.body as { id: string }).id;
}
