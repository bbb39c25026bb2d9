/**
 * maxLimit and maxWaitSeconds are applied as configured, not only reported: /info says the configured
 * values, a poll's `limit` above maxLimit is refused (and its default never exceeds it), a poll waits at
 * most maxWaitSeconds, and 0 turns long-polls off and `long-poll` out of the features (CAP-INFO-2).
 */
import { afterEach, describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config.js";
import { makeWorld, type World } from "../helpers/world.js";

let w: World | undefined;
afterEach(async () => {
  await w?.app.close();
  w = undefined;
});

describe("configured maxLimit and maxWaitSeconds", () => {
  it("are what /info reports", async () => {
    w = await makeWorld({ config: { maxLimit: 3, maxWaitSeconds: 1 } });
    const info = (await w.cap(w.alpha.token, "GET", "/info")).json();
    expect(info).toMatchObject({ maxLimit: 3, maxWaitSeconds: 1 });
    expect(info.features).toContain("long-poll");
  });

  it("refuse a limit above maxLimit, accept maxLimit, and default to it when it is below 20", async () => {
    w = await makeWorld({ config: { maxLimit: 3 } });
    for (let i = 0; i < 5; i++)
      await w.adminApi("POST", "/admin/events", {
        agentName: "alpha",
        podId: w.podA.id,
        type: "t",
        payload: {},
      });
    const over = await w.cap(w.alpha.token, "GET", "/events?limit=4");
    expect(over.statusCode).toBe(400);
    expect(over.json()).toMatchObject({ code: "validation_failed" });
    const atMax = await w.cap(w.alpha.token, "GET", "/events?limit=3");
    expect(atMax.json().events).toHaveLength(3);
    const byDefault = await w.cap(w.alpha.token, "GET", "/events");
    expect(byDefault.json().events).toHaveLength(2);
  });

  it("shorten a longer wait to maxWaitSeconds", async () => {
    w = await makeWorld({ config: { maxWaitSeconds: 1, longPollSlackMs: 0 } });
    const start = performance.now();
    const res = await w.cap(w.alpha.token, "GET", "/events?waitSeconds=25");
    const waited = performance.now() - start;
    expect(res.json().events).toEqual([]);
    expect(waited).toBeGreaterThanOrEqual(950);
    expect(waited).toBeLessThan(5000);
  });

  it("with maxWaitSeconds 0, answer every poll at once and leave long-poll out of the features", async () => {
    w = await makeWorld({ config: { maxWaitSeconds: 0 } });
    const info = (await w.cap(w.alpha.token, "GET", "/info")).json();
    expect(info.maxWaitSeconds).toBe(0);
    expect(info.features).not.toContain("long-poll");
    const start = performance.now();
    const res = await w.cap(w.alpha.token, "GET", "/events?waitSeconds=25");
    expect(res.statusCode).toBe(200);
    expect(performance.now() - start).toBeLessThan(900);
  });

  it.each([
    [{ maxLimit: 0 }, "maxLimit"],
    [{ maxLimit: 51 }, "maxLimit"],
    [{ maxLimit: 2.5 }, "maxLimit"],
    [{ maxWaitSeconds: 26 }, "maxWaitSeconds"],
    [{ maxWaitSeconds: -1 }, "maxWaitSeconds"],
  ])("are refused at start outside what /info may report: %j", (config, name) => {
    expect(() => resolveConfig(config)).toThrow(name);
  });
});
