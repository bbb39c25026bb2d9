/**
 * Waiting without guessing: poll a probe until it returns a truthy value or a deadline passes, then fail
 * saying what was awaited and the probe's last error. A fast machine finishes as soon as the state is
 * there; a test never sleeps a guessed amount.
 */
export interface DeadlineOptions {
    /** Default 20 s: generous on a loaded two-core CI machine; a passing test never waits it out. */
    timeoutMs?: number;
    /** Pause between probes, default 20 ms. */
    everyMs?: number;
}
export declare function eventually<T>(probe: () => T | Promise<T>, what: string, { timeoutMs, everyMs }?: DeadlineOptions): Promise<NonNullable<T>>;
