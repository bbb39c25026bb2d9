/**
 * The kernel's clock, injected into every service so tests can drive time. Epoch milliseconds.
 */
export interface Clock {
    now(): number;
}
export declare const systemClock: Clock;
/** A clock that only moves when told to (unit tests). */
export declare function manualClock(start?: number): Clock & {
    advance(ms: number): void;
    set(ms: number): void;
};
/** Epoch ms → ISO 8601 (UTC, milliseconds), as on the wire. */
export declare const iso: (ms: number) => string;
