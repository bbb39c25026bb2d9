/**
 * A store-outage switch for a reference kernel under test: what a conformance fixture's `storeOutage` hook
 * runs. `commands.down` and `commands.up` are shell commands (a `node -e` POST to this process, which holds
 * the switch) that make the kernel's store unavailable and available again, each exiting once that is so.
 *
 * - SQLite: `down` takes the database file's write lock from this process, the way another process would;
 *   the kernel's writes wait out their busy timeout (`CAP_SQLITE_BUSY_TIMEOUT_MS`; startKernel sets 250 ms)
 *   and fail, and reads go on (the file is still readable). `up` rolls the lock's empty transaction back.
 * - PostgreSQL: the kernel reaches the database through a loopback TCP proxy — `db` is the URL to serve it
 *   with — and `down` cuts every connection through it and refuses new ones; `up` lets them through again.
 *
 * Must never: write to the store (the lock's transaction is empty and rolled back), or keep a connection,
 * a lock or a listener past `close()`.
 */

import { type Server as HttpServer, createServer as httpServer } from "node:http";
import { createRequire } from "node:module";
import { connect, type Server, type Socket, createServer as tcpServer } from "node:net";

export interface StoreOutageSwitch {
  /** The `--db` URL to serve the kernel with (PostgreSQL: through the proxy; SQLite: unchanged). */
  readonly db: string;
  /** The fixture hook: `"storeOutage": commands` (or `--store-down-cmd` / `--store-up-cmd`). */
  readonly commands: { down: string; up: string };
  readonly isDown: boolean;
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

interface Cut {
  down(): void;
  up(): void;
  close(): Promise<void>;
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const POST = `fetch(process.argv[1],{method:"POST"}).then(r=>process.exit(r.ok?0:1),e=>{console.error(String(e));process.exit(1)})`;

/** The switch for the store behind `db` (`sqlite:PATH` or `postgres://…`; not `sqlite::memory:`). */
export async function storeOutageSwitch(db: string): Promise<StoreOutageSwitch> {
  let served = db;
  let cut: Cut;
  if (db.startsWith("sqlite:") && db !== "sqlite::memory:") cut = sqliteLock(db.slice("sqlite:".length));
  else if (/^postgres(ql)?:\/\//.test(db)) {
    const proxy = await tcpProxy(new URL(db));
    const url = new URL(db);
    url.hostname = "127.0.0.1";
    url.port = String(proxy.port);
    served = url.toString();
    cut = proxy;
  } else throw new Error(`storeOutageSwitch needs an SQLite file or a PostgreSQL URL, not ${db}`);

  let isDown = false;
  const control: HttpServer = httpServer((req, res) => {
    const action = req.method === "POST" ? req.url : undefined;
    try {
      if (action === "/down") {
        if (!isDown) cut.down();
        isDown = true;
      } else if (action === "/up") {
        if (isDown) cut.up();
        isDown = false;
      } else return void res.writeHead(404).end();
      res.writeHead(204).end();
    } catch (err) {
      res.writeHead(500).end(String(err));
    }
  });
  await new Promise<void>((r) => control.listen(0, "127.0.0.1", r));
  const base = `http://127.0.0.1:${(control.address() as { port: number }).port}`;
  const command = (action: string) =>
    [process.execPath, "-e", POST, `${base}/${action}`].map(shellQuote).join(" ");
  const post = async (action: string) => {
    const r = await fetch(`${base}/${action}`, { method: "POST" });
    if (!r.ok) throw new Error(`store outage switch: ${action} answered ${r.status} ${await r.text()}`);
  };
  return {
    db: served,
    commands: { down: command("down"), up: command("up") },
    get isDown() {
      return isDown;
    },
    down: () => post("down"),
    up: () => post("up"),
    async close() {
      if (isDown) cut.up();
      control.closeAllConnections();
      await new Promise<void>((r) => control.close(() => r()));
      await cut.close();
    },
  };
}

/** Another connection to the file holds its write lock (an empty IMMEDIATE transaction) while down. */
function sqliteLock(path: string): Cut {
  // better-sqlite3 as the kernel itself resolves it.
  const Database = createRequire(import.meta.url)("better-sqlite3");
  let held: { exec(sql: string): void; close(): void } | undefined;
  const up = () => {
    held?.exec("ROLLBACK");
    held?.close();
    held = undefined;
  };
  return {
    down() {
      const other = new Database(path);
      other.exec("BEGIN IMMEDIATE");
      held = other;
    },
    up,
    close: async () => up(),
  };
}

/** A loopback TCP proxy to `target` that can cut every connection and refuse new ones. */
async function tcpProxy(target: URL): Promise<Cut & { port: number }> {
  const open = new Set<Socket>();
  let refusing = false;
  const server: Server = tcpServer((client) => {
    if (refusing) return void client.destroy();
    const upstream = connect({ host: target.hostname, port: Number(target.port || 5432) });
    for (const s of [client, upstream]) {
      open.add(s);
      s.on("error", () => {
        client.destroy();
        upstream.destroy();
      });
      s.on("close", () => {
        open.delete(s);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const cutAll = () => {
    for (const s of open) s.destroy();
    open.clear();
  };
  return {
    port: (server.address() as { port: number }).port,
    down() {
      refusing = true;
      cutAll();
    },
    up() {
      refusing = false;
    },
    close: () =>
      new Promise<void>((r) => {
        cutAll();
        server.close(() => r());
      }),
  };
}
