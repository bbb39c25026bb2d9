import { eventually } from "@commonly/cap-kernel/testing";
import { describe, expect, it } from "vitest";
import { PollSize } from "../../src/internal/driver/poll-size.js";
import { setup } from "../helpers/driver-setup.js";

const LEASE = 30_000;

describe("PollSize", () => {
  // Each row: the caller's limit (or none), the kernel's maxLimit, batches as [count, elapsedMs], the limits after each.
  const table: Array<{
    given: string;
    fixed?: number;
    maxLimit: number;
    batches: Array<[number, number]>;
    want: number[];
  }> = [
    {
      given: "full pages handled quickly double up to maxLimit",
      maxLimit: 50,
      batches: [
        [10, 20],
        [20, 40],
        [40, 90],
        [50, 100],
      ],
      want: [20, 40, 50, 50],
    },
    {
      given: "a page that was not full keeps the size",
      maxLimit: 50,
      batches: [
        [10, 20],
        [7, 5],
      ],
      want: [20, 20],
    },
    {
      given: "a full page that took more than a tenth of a lease keeps the size",
      maxLimit: 50,
      batches: [
        [10, 20],
        [20, 4_000],
      ],
      want: [20, 20],
    },
    {
      given: "a batch longer than a quarter of a lease goes back to 10",
      maxLimit: 50,
      batches: [
        [10, 20],
        [20, 40],
        [40, 8_000],
      ],
      want: [20, 40, 10],
    },
    { given: "a small maxLimit caps the start", maxLimit: 4, batches: [[4, 1]], want: [4] },
    {
      given: "the caller's own limit never changes",
      fixed: 5,
      maxLimit: 50,
      batches: [
        [5, 1],
        [5, 20_000],
      ],
      want: [5, 5],
    },
    {
      given: "the caller's own limit is capped by maxLimit",
      fixed: 80,
      maxLimit: 50,
      batches: [[50, 1]],
      want: [50],
    },
  ];

  for (const row of table) {
    it(row.given, () => {
      const size = new PollSize(row.fixed);
      size.maxLimit = row.maxLimit;
      const got = row.batches.map(([count, elapsed]) => {
        size.handled(count, size.limit, elapsed, LEASE);
        return size.limit;
      });
      expect(got).toEqual(row.want);
    });
  }

  it("stays at 10 until /info names the kernel's maxLimit", () => {
    const size = new PollSize();
    size.handled(10, 10, 1, LEASE);
    expect(size.limit).toBe(10);
  });
});

describe("runDriver's poll size", () => {
  it("claims a backlog of quick events in growing pages, and the caller's limit as given", async () => {
    const t = setup();
    for (let i = 0; i < 130; i++) t.kernel.enqueue("task.assigned", { taskId: String(i), title: "x" });
    t.start();
    await eventually(() => t.kernel.acks.length === 130, "the backlog is acked");
    expect(t.kernel.polls.slice(0, 5).map((p) => p.limit)).toEqual([10, 20, 40, 50, 50]);
    await t.finish();

    const fixed = setup({ limit: 7 });
    for (let i = 0; i < 30; i++) fixed.kernel.enqueue("task.assigned", { taskId: String(i), title: "x" });
    fixed.start();
    await eventually(() => fixed.kernel.acks.length === 30, "the backlog is acked");
    expect(new Set(fixed.kernel.polls.map((p) => p.limit))).toEqual(new Set([7]));
    await fixed.finish();
  });
});
