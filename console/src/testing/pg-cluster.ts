/**
 * A throwaway PostgreSQL cluster of a test's own, which it may stop and start (never the shared one) — the
 * kernel's and the CLI's store-outage tests restart it under load: `pg_createcluster` on a free port, as root on Debian (CI). Elsewhere `unavailableReason` says why not.
 * Must never: touch a cluster it did not create, or leave one behind (`drop()` in afterAll).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import { createServer } from "node:net";

function which(cmd: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${cmd}`]).status === 0;
}

export const clusterUnavailable: string | null =
  process.getuid?.() !== 0
    ? "not root (pg_createcluster needs root; CI runs as root)"
    : !which("pg_createcluster") || !existsSync("/usr/lib/postgresql")
      ? "pg_createcluster not installed (Debian's postgresql package)"
      : null;

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address() as { port: number };
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

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
