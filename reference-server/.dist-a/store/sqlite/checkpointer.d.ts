export interface CheckpointerOptions {
    /** The database file (in WAL mode). */
    path: string;
    /** WAL frames appended since the last checkpoint that make the next one worth it. Default 1000. */
    minFrames?: number;
    /** How often the thread looks at the WAL's size (ms). Default 100. */
    intervalMs?: number;
}
export interface Checkpointer {
    /** Checkpoints run by the thread so far (tests, diagnostics). */
    readonly checkpoints: number;
    /** Stops the thread after the checkpoint it may be running; resolves once it has exited. */
    close(): Promise<void>;
}
export declare function startCheckpointer({ path, minFrames, intervalMs, }: CheckpointerOptions): Checkpointer;
