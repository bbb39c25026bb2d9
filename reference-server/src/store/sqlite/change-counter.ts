/**
 * The change counter of a WAL database: `iChange` of the wal-index header, at byte 8 of the `-shm` file,
 * which every commit to the file moves (SQLite's walformat.html, "The WAL-Index Header"; stored in the
 * machine's byte order). The same read takes `mxFrame` (byte 16), the frames now in the WAL, which tells
 * the store when the WAL has grown enough to start checkpointing it off the event loop (checkpointer.ts).
 * Reading it is one pread, where `PRAGMA data_version`, the documented way to learn that another
 * connection committed, opens and closes a read transaction, several times the cost; between two commits
 * of the file, every look after the first is a pread.
 *
 * Only ever a hint that nothing changed: an equal counter means no commit since it was read; anything else
 * (a different value, no file, a failed or short read) sends the caller to `data_version`.
 */
import { closeSync, openSync, readSync } from "node:fs";
import { endianness } from "node:os";

const OFFSET = 8; // iChange; mxFrame follows 8 bytes later
const LENGTH = 12;

export interface ChangeCounter {
  /** The counter now, or null when it cannot be read. */
  read(): number | null;
  /** The WAL's frame count as of the last successful read (0 before one). */
  readonly frames: number;
  close(): void;
}

/** A counter that cannot be read: every look goes to data_version. */
export const NO_CHANGE_COUNTER: ChangeCounter = { read: () => null, frames: 0, close: () => undefined };

/** The counter of the WAL database at `path` (open it after the first statement has created -shm). */
export function openChangeCounter(path: string): ChangeCounter {
  let fd: number;
  try {
    fd = openSync(`${path}-shm`, "r");
  } catch {
    return NO_CHANGE_COUNTER;
  }
  const buf = Buffer.alloc(LENGTH);
  const little = endianness() === "LE";
  let open = true;
  let frames = 0;
  return {
    read() {
      if (!open) return null;
      try {
        if (readSync(fd, buf, 0, LENGTH, OFFSET) !== LENGTH) return null;
      } catch {
        return null;
      }
      frames = little ? buf.readUInt32LE(8) : buf.readUInt32BE(8);
      return little ? buf.readUInt32LE(0) : buf.readUInt32BE(0);
    },
    get frames() {
      return frames;
    },
    close() {
      if (!open) return;
      open = false;
      closeSync(fd);
    },
  };
}
