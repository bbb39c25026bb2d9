export const systemClock = { now: () => Date.now() };
/** A clock that only moves when told to (unit tests). */
export function manualClock(start = Date.UTC(2026, 10, 29, 12, 0, 0)) {
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
// A poll answers up to 50 events that mostly share two instants (one lease end, and the creation time of
// events enqueued together): two remembered conversions spare a Date and a toISOString per event.
const lastMs = [Number.NaN, Number.NaN];
const lastIso = ["", ""];
let slot = 0;
/** Epoch ms → ISO 8601 (UTC, milliseconds), as on the wire. */
export const iso = (ms) => {
    if (ms === lastMs[0])
        return lastIso[0];
    if (ms === lastMs[1])
        return lastIso[1];
    const s = new Date(ms).toISOString();
    lastMs[slot] = ms;
    lastIso[slot] = s;
    slot ^= 1;
    return s;
};
//# sourceMappingURL=clock.js.map