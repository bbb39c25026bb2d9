import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_EVENT_RING_CAPACITY, openEventRing } from "../../src/state/event-ring.js";
import { tempHome } from "../helpers/temp-home.js";

let t: ReturnType<typeof tempHome>;
let path: string;
beforeEach(() => {
  t = tempHome();
  path = join(t.home, "sessions", "x.events.json");
});
afterEach(() => t.cleanup());

describe("handled-event ring", () => {
  it("remembers ids it was given and persists them", async () => {
    const ring = await openEventRing(path);
    expect(ring.has("evt_1")).toBe(false);
    await ring.add("evt_1");
    expect(ring.has("evt_1")).toBe(true);
    expect((await openEventRing(path)).has("evt_1")).toBe(true);
  });

  it("holds at most 500 ids, dropping the oldest first", async () => {
    expect(DEFAULT_EVENT_RING_CAPACITY).toBe(500);
    const ring = await openEventRing(path);
    for (let i = 0; i < 503; i += 1) void ring.add(`evt_${i}`);
    await ring.add("evt_502"); // a duplicate: waits for the queued writes, changes nothing
    expect(ring.size).toBe(500);
    expect(ring.has("evt_0")).toBe(false);
    expect(ring.has("evt_2")).toBe(false);
    expect(ring.has("evt_3")).toBe(true);
    expect(ring.ids()[0]).toBe("evt_3");
    const onDisk = JSON.parse(readFileSync(path, "utf8")) as { ids: string[] };
    expect(onDisk.ids).toHaveLength(500);
    expect(onDisk.ids.at(-1)).toBe("evt_502");
  });

  it("trims an oversized file to capacity on open and ignores junk entries", async () => {
    const big = await openEventRing(path, { capacity: 10 });
    for (let i = 0; i < 10; i += 1) await big.add(`e${i}`);
    const small = await openEventRing(path, { capacity: 3 });
    expect(small.ids()).toEqual(["e7", "e8", "e9"]);
  });

  it("rejects a capacity below one", async () => {
    await expect(openEventRing(path, { capacity: 0 })).rejects.toThrow(RangeError);
  });
});
