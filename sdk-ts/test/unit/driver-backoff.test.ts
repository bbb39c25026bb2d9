/**
 * The backoff before the next poll after a batch the driver could not settle, on virtual time against
 * the in-memory kernel: the delays (the poll interval, doubling, the agent's offset, never under a
 * Retry-After), what counts as trouble (a failed ack, a batch ack answered for other ids, an acked
 * event delivered again) and what does not (404 event_not_found, a clean batch, which resets it).
 * The same behaviour against real sockets is test/integration/wrong-servers.test.ts.
 */
import { eventually } from "@commonly/cap-kernel/testing";
import { describe, expect, it } from "vitest";
import { CapHttpError } from "../../src/errors.js";
import { Backoff } from "../../src/internal/driver/backoff.js";
import { j, setup } from "../helpers/driver-setup.js";
import { httpError } from "../helpers/fake-kernel.js";

describe("Backoff", () => {
  // given failures in a row (and a Retry-After), want the delay: base 1000 ms, offset 0.1, ceiling 8000.
  const table: Array<[string, number[], number]> = [
    ["the first failure waits the base", [0], 1100],
    ["each failure in a row doubles it", [0, 0, 0], 4400],
    ["the ceiling bounds it (plus the offset)", [0, 0, 0, 0, 0, 0], 8800],
    ["a longer Retry-After wins", [0, 20_000], 20_000],
    ["a shorter Retry-After does not shorten it", [0, 500], 2200],
  ];
  for (const [name, atLeast, want] of table)
    it(name, () => {
      const backoff = new Backoff(1000, 0.1, 8000);
      let last = 0;
      for (const ms of atLeast) last = backoff.next(ms);
      expect(last).toBe(want);
      expect(backoff.failures).toBe(atLeast.length);
    });

  it("starts from the base again after a reset", () => {
    const backoff = new Backoff(1000, 0, 8000);
    backoff.next();
    backoff.next();
    backoff.reset();
    expect([backoff.failures, backoff.next()]).toEqual([0, 1000]);
  });
});

describe("runDriver's backoff after a batch it could not settle", () => {
  it("waits the interval, then doubling, while acks fail; a clean batch starts it over", async () => {
    const t = setup();
    t.kernel.leaseSeconds = 1; // an unacked event comes back at the next poll after a second
    t.kernel.features = t.kernel.features.filter((f) => f !== "batch-ack");
    const realAck = t.kernel.ack.bind(t.kernel);
    let failing = 3;
    t.kernel.ack = async (id, result) => {
      if (failing > 0) {
        failing--;
        throw httpError(500, "internal_error", "POST /events/{id}/ack");
      }
      return realAck(id, result);
    };
    const delays: number[] = [];
    t.start({ onBackoff: (b) => delays.push(b.delayMs) });
    const first = t.kernel.enqueue("task.assigned", {});
    await eventually(() => t.kernel.acked(first), "the event acked after three failed acks");
    expect(delays).toEqual([j(1000), j(2000), j(4000)]);
    failing = 1;
    const second = t.kernel.enqueue("task.assigned", {});
    await eventually(() => t.kernel.acked(second), "the second event acked after one failed ack");
    expect(delays).toEqual([j(1000), j(2000), j(4000), j(1000)]);
    await t.finish();
  });

  it("backs off when the kernel delivers again an event whose ack it confirmed (CAP-ACK-4)", async () => {
    const t = setup();
    t.kernel.leaseSeconds = 1;
    t.kernel.features = t.kernel.features.filter((f) => f !== "batch-ack");
    // A kernel that answers 200 to every ack and keeps none of them.
    t.kernel.ack = async () => ({ ok: true });
    const reasons: string[] = [];
    const delays: number[] = [];
    t.start({
      onBackoff: (b) => {
        reasons.push(b.reason);
        delays.push(b.delayMs);
      },
    });
    t.kernel.enqueue("task.assigned", {});
    await eventually(() => delays.length >= 2, "two backoffs");
    expect(reasons[0]).toMatch(/delivered again 1 event\(s\) it had confirmed acked/);
    expect(delays.slice(0, 2)).toEqual([j(1000), j(2000)]);
    await t.finish();
  });

  it("backs off after a batch ack answered with results for other ids (Prism's example)", async () => {
    const t = setup();
    t.kernel.leaseSeconds = 1;
    t.kernel.ackMany = async () => ({
      results: [
        { id: "evt_01JH7Z9QK3W5Y2", ok: true as const },
        { id: "evt_01JH7Z9QK3W5Y3", ok: false as const, code: "event_not_found" },
      ],
    });
    const delays: number[] = [];
    const errors: string[] = [];
    t.start({ onBackoff: (b) => delays.push(b.delayMs), onError: (e) => errors.push(e.stage) });
    t.kernel.enqueue("task.assigned", {});
    await eventually(() => delays.length >= 1, "a backoff");
    expect(delays[0]).toBe(j(1000));
    expect(errors).toContain("ack");
    await t.finish();
  });

  it("never polls again sooner than an ack's Retry-After", async () => {
    const t = setup();
    t.kernel.features = t.kernel.features.filter((f) => f !== "batch-ack");
    t.kernel.ack = async () => {
      throw new CapHttpError({
        status: 503,
        code: "store_unavailable",
        message: "wait",
        operation: "POST /events/{id}/ack",
        retryAfterSeconds: 7,
      });
    };
    const delays: number[] = [];
    t.start({ onBackoff: (b) => delays.push(b.delayMs) });
    t.kernel.enqueue("task.assigned", {});
    await eventually(() => delays.length >= 1, "a backoff");
    expect(delays[0]).toBe(7000);
    await t.finish();
  });

  it("takes 404 event_not_found on an ack as settled: no backoff", async () => {
    const t = setup();
    t.kernel.features = t.kernel.features.filter((f) => f !== "batch-ack");
    // The events are gone by the time their acks arrive (deleted with their pod, say).
    t.kernel.ack = async (id) => {
      t.kernel.rows.find((r) => r.event.id === id)!.state = "failed";
      throw httpError(404, "event_not_found", "POST /events/{id}/ack");
    };
    const delays: number[] = [];
    const errors: string[] = [];
    t.start({ onBackoff: (b) => delays.push(b.delayMs), onError: (e) => errors.push(e.stage) });
    t.kernel.enqueue("task.assigned", {});
    t.kernel.enqueue("task.assigned", {});
    await eventually(() => errors.length === 2, "both acks answered 404");
    await eventually(() => t.kernel.polls.length >= 3, "the driver polls on");
    expect(delays).toEqual([]);
    await t.finish();
  });
});
