/**
 * How big and how long each measurement is. `full` is what `pnpm bench` publishes (a few minutes on a
 * 2-core machine); `quick` only checks that the harness works end to end (well under a minute) and its
 * figures mean nothing. Every loop in the bench is bounded by these counts and time limits.
 */
export const SIZES = {
  full: {
    warmupMs: 1000,
    baselineMs: 5000,
    drainEvents: 50_000,
    drainTimeoutMs: 120_000,
    chains: 4,
    conversationalMs: 8000,
    wakeSamples: 500,
    parkMs: 10,
    wakeTimeoutMs: 60_000,
    wakeLoadMin: 20_000,
    wakeLoadMax: 200_000,
    redeliveryAgents: 24,
    redeliveryRounds: 10,
    footprintEvents: 100_000,
    idleDrivers: 2000,
    idleWaitSeconds: 25,
    idleWindowMs: 25_000,
    idleWakeSamples: 200,
  },
  quick: {
    warmupMs: 200,
    baselineMs: 1000,
    drainEvents: 2000,
    drainTimeoutMs: 20_000,
    chains: 2,
    conversationalMs: 1500,
    wakeSamples: 40,
    parkMs: 10,
    wakeTimeoutMs: 20_000,
    wakeLoadMin: 2000,
    wakeLoadMax: 5000,
    redeliveryAgents: 4,
    redeliveryRounds: 2,
    footprintEvents: 5000,
    idleDrivers: 50,
    idleWaitSeconds: 3,
    idleWindowMs: 3000,
    idleWakeSamples: 20,
  },
};
