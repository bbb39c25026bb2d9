/**
 * The kernel's clock, injected into every service so tests can drive time. Epoch milliseconds.
 */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to (unit tests). */
export function manualClock(
  start = Date.UTC(2026, 10, 29, 12, 0, 0),
): Clock & { advance(ms: number): void; set(ms: number): void } {
  let t = start;
  return {
    now: () => t,
    advance: (ms) => {
      t += ms;
    },
    set: (ms) => {
      t = ms;
    },
  };
}

export const iso = (ms: number): string => new Date(ms).toISOString();
