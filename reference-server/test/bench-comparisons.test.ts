/**
 * The drains' comparisons (bench/comparisons.mjs): a ratio of two figures of one run, over the
 * yardstick of the same store and ack mode; never a number when the yardstick was not measured.
 */
import { describe, expect, it } from "vitest";
import { compare } from "../bench/comparisons.mjs";

const drain = (id: string, value: number, ack: string) => ({ id, value, store: id.split("-")[1], _ack: ack });

describe("the drains' comparisons", () => {
  it("divide the SDK's drain by the bench's drain of its ack mode, and each drain by its ceiling", () => {
    const { rows, skipped } = compare([
      drain("drain-sqlite-events", 10_000, "each"),
      drain("drain-batch-sqlite-events", 40_000, "batch"),
      { id: "drain-sdk-sqlite-events", value: 8_000, store: "sqlite", _ack: "batch" },
      { id: "ceiling-sqlite-each-events", value: 12_500, store: "sqlite", _ack: "each" },
      { id: "ceiling-sqlite-batch-events", value: 50_000, store: "sqlite", _ack: "batch" },
    ]);
    const value = (id: string) => rows.find((r) => r.id === id)?.value;
    expect(value("drain-sdk-sqlite-over-bare")).toBe(0.2);
    expect(value("drain-sqlite-over-ceiling")).toBe(0.8);
    expect(value("drain-batch-sqlite-over-ceiling")).toBe(0.8);
    expect(value("drain-sdk-sqlite-over-ceiling")).toBe(0.16);
    expect(rows.find((r) => r.id === "drain-sqlite-over-ceiling")?.goal).toEqual({
      of: "value",
      op: ">=",
      target: 0.85,
    });
    expect(skipped).toEqual([]);
  });

  it("takes the faster of PostgreSQL's two one-ack ceilings, and skips a comparison without its yardstick", () => {
    const { rows, skipped } = compare([
      { id: "drain-postgres-events", value: 3_000, store: "postgres", _ack: "each" },
      { id: "drain-pollid-postgres-events", value: 2_900, store: "postgres", _ack: "each" },
      { id: "ceiling-postgres-each-events", value: 2_000, store: "postgres", _ack: "each" },
      { id: "ceiling-postgres-shared-events", value: 4_000, store: "postgres", _ack: "each" },
    ]);
    expect(rows.find((r) => r.id === "drain-postgres-over-ceiling")).toMatchObject({
      value: 0.75,
      unit: "× ceiling-postgres-shared-events",
    });
    expect(rows.find((r) => r.id === "drain-pollid-postgres-over-bare")?.value).toBe(0.967);
    expect(rows.map((r) => r.id)).not.toContain("drain-sdk-postgres-over-bare");
    expect(skipped).toEqual([]);
    const alone = compare([{ id: "drain-sdk-sqlite-events", value: 1, store: "sqlite", _ack: "batch" }]);
    expect(alone.rows).toEqual([]);
    expect(alone.skipped.map((s) => s.ids[0])).toEqual([
      "drain-sdk-sqlite-over-bare",
      "drain-sdk-sqlite-over-ceiling",
    ]);
  });
});
