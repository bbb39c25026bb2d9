import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ringHandledStore } from "../../src/loop/ring-store.js";
import { openEventRing } from "../../src/state/event-ring.js";
import { tempHome } from "../helpers/temp-home.js";

let t: ReturnType<typeof tempHome>;
beforeEach(() => {
  t = tempHome();
});
afterEach(() => t.cleanup());

describe("the event ring as runDriver's handled store", () => {
  it("knows nothing at first, then the ack result of a turn of this run", async () => {
    const store = ringHandledStore(await openEventRing(`${t.home}/a.events.json`));
    expect(await store.get("evt_1")).toBeUndefined();
    await store.set("evt_1", { outcome: "posted", messageId: "msg_1" });
    expect(await store.get("evt_1")).toEqual({ outcome: "posted", messageId: "msg_1" });
  });

  it("persists ids, so after a restart a handled event is re-acked as acknowledged", async () => {
    const path = `${t.home}/b.events.json`;
    await ringHandledStore(await openEventRing(path)).set("evt_2", { outcome: "posted" });
    const again = ringHandledStore(await openEventRing(path));
    expect(await again.get("evt_2")).toEqual({ outcome: "acknowledged", reason: "handled before this run" });
    expect(await again.get("evt_3")).toBeUndefined();
  });
});
