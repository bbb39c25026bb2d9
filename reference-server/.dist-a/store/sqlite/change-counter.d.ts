export interface ChangeCounter {
    /** The counter now, or null when it cannot be read. */
    read(): number | null;
    /** The WAL's frame count as of the last successful read (0 before one). */
    readonly frames: number;
    close(): void;
}
/** A counter that cannot be read: every look goes to data_version. */
export declare const NO_CHANGE_COUNTER: ChangeCounter;
/** The counter of the WAL database at `path` (open it after the first statement has created -shm). */
export declare function openChangeCounter(path: string): ChangeCounter;
