import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { agentPaths } from "../../src/state/home.js";
import { createSessionStore } from "../../src/state/sessions.js";
import { tempHome } from "../helpers/temp-home.js";

let t: ReturnType<typeof tempHome>;
beforeEach(() => {
  t = tempHome();
});
afterEach(() => t.cleanup());

describe("session store", () => {
  it("keeps one session per pod in sessions/<name>.json, in ADR-005's shape", async () => {
    const s = createSessionStore(t.home, "my-claude");
    expect(await s.get("pod_a")).toBeNull();
    await s.set("pod_a", "sess-1", new Date("2026-11-29T18:00:00Z"));
    await s.set("pod_b", "sess-2", new Date("2026-11-29T18:01:00Z"));
    expect(await s.get("pod_a")).toEqual({ sessionId: "sess-1", lastTurn: "2026-11-29T18:00:00.000Z" });
    expect(JSON.parse(readFileSync(agentPaths(t.home, "my-claude").sessions, "utf8"))).toEqual({
      pod_a: { sessionId: "sess-1", lastTurn: "2026-11-29T18:00:00.000Z" },
      pod_b: { sessionId: "sess-2", lastTurn: "2026-11-29T18:01:00.000Z" },
    });
  });

  it("survives a restart and keeps agents apart", async () => {
    await createSessionStore(t.home, "a").set("pod", "sa");
    await createSessionStore(t.home, "b").set("pod", "sb");
    expect((await createSessionStore(t.home, "a").get("pod"))?.sessionId).toBe("sa");
    expect((await createSessionStore(t.home, "b").get("pod"))?.sessionId).toBe("sb");
  });

  it("loses no update when several pods are written at once", async () => {
    const s = createSessionStore(t.home, "x");
    await Promise.all(Array.from({ length: 25 }, (_, i) => s.set(`pod_${i}`, `s${i}`)));
    expect(Object.keys(await s.all())).toHaveLength(25);
    await s.delete("pod_3");
    expect(await s.get("pod_3")).toBeNull();
    expect(Object.keys(await s.all())).toHaveLength(24);
  });
});
