/**
 * What `openSqliteStore` takes (index.ts), apart from the store it opens so that assemble.ts can read it too.
 */
export interface SqliteStoreOptions {
  /** A file path, or ":memory:". */
  path: string;
  /** How long a statement waits for a file locked by another process before it fails (503). Default 5000. */
  busyTimeoutMs?: number;
  /**
   * Checkpoint the WAL from a thread of its own once it holds this many frames (checkpointer.ts); false:
   * only SQLite's autocheckpoint, inside commits. Default 1000.
   */
  checkpointThreadFrames?: number | false;
  /** False: the plain store, without the accelerators of accelerators.ts. Default true. */
  accelerate?: boolean;
}
