import { type Store } from "../contract.js";
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
}
export declare function openSqliteStore(options: SqliteStoreOptions): Store;
