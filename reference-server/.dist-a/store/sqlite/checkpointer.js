/**
 * WAL checkpoints off the event loop. SQLite's own checkpoint runs inside whichever commit takes the WAL
 * past `wal_autocheckpoint` pages: it reads every frame back, writes the pages into the database file and
 * fsyncs both, on the thread that serves requests. This worker thread, with a connection of its own,
 * runs PASSIVE checkpoints instead whenever the WAL has grown by `minFrames` since its last one, so the
 * store's commits only append; SQLite's autocheckpoint stays on as the backstop for when it cannot keep
 * up or is gone. A PASSIVE checkpoint never waits for readers or writers, and SQLite lets connections on
 * other threads share the file (each connection stays on its own thread). The store starts it once the
 * WAL is big enough to matter, so short-lived processes (CLI commands, tests) never pay for a thread.
 *
 * Must never: block or fail a request (a checkpoint error is left to the next try, then to the backstop),
 * keep the process alive (the thread is unref'd), or outlive the store (close() waits for it to exit).
 */
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
// The thread's code, run as CommonJS from a string: a file next to this module would not exist when the
// sources run untranspiled (vitest). It looks at mxFrame in the wal-index header (byte 16 of -shm, the
// machine's byte order: SQLite's walformat.html) with one pread per look, and sleeps in Atomics.wait so
// that close() can wake it at once.
const THREAD = `
const { workerData, parentPort } = require("node:worker_threads");
const { openSync, readSync, closeSync } = require("node:fs");
const { endianness } = require("node:os");
const Database = require(workerData.driver);
const control = new Int32Array(workerData.control);
const db = new Database(workerData.path, { fileMustExist: true });
db.pragma("busy_timeout = 0");
db.pragma("synchronous = NORMAL");
const shm = openSync(workerData.path + "-shm", "r");
const buf = Buffer.alloc(4);
const little = endianness() === "LE";
const frames = () =>
  readSync(shm, buf, 0, 4, 16) !== 4 ? 0 : little ? buf.readUInt32LE(0) : buf.readUInt32BE(0);
let done = 0;
while (Atomics.load(control, 0) === 0) {
  Atomics.wait(control, 0, 0, workerData.intervalMs);
  if (Atomics.load(control, 0) !== 0) break;
  try {
    const now = frames();
    // A WAL that restarted has fewer frames than were last backfilled: count from its start.
    if (now < done) done = 0;
    if (now - done < workerData.minFrames) continue;
    const [r] = db.pragma("wal_checkpoint(PASSIVE)");
    done = r.checkpointed;
    parentPort.postMessage(1);
  } catch {
    // busy, or the file went away: the next look tries again, and the store's autocheckpoint is the backstop
  }
}
closeSync(shm);
db.close();
`;
const driver = createRequire(import.meta.url).resolve("better-sqlite3");
export function startCheckpointer({ path, minFrames = 1000, intervalMs = 100, }) {
    const control = new Int32Array(new SharedArrayBuffer(4));
    const worker = new Worker(THREAD, {
        eval: true,
        workerData: { driver, path, minFrames, intervalMs, control: control.buffer },
    });
    let checkpoints = 0;
    let exited = false;
    const exit = new Promise((resolve) => {
        worker.once("exit", () => {
            exited = true;
            resolve();
        });
    });
    worker.on("message", () => {
        checkpoints++;
    });
    // A thread that dies (the file could not be opened) leaves checkpoints to SQLite's autocheckpoint.
    worker.on("error", () => undefined);
    worker.unref();
    return {
        get checkpoints() {
            return checkpoints;
        },
        async close() {
            if (!exited) {
                Atomics.store(control, 0, 1);
                Atomics.notify(control, 0);
            }
            await exit;
        },
    };
}
//# sourceMappingURL=checkpointer.js.map