import { describe, expect, it } from "vitest";
import {
  clockOffset,
  countByState,
  delayRemainingMs,
  formatAvailableIn,
  formatCountdown,
  leaseRemainingMs,
  parsePayload,
  payloadTemplate,
  takeTokenFromHash,
} from "../public/js/model.js";

describe("lease countdown on the kernel's clock", () => {
  it("corrects for a kernel clock that runs ahead of the browser's", () => {
    const offset = clockOffset("2026-11-29T12:00:10.000Z", Date.parse("2026-11-29T12:00:00.000Z"));
    expect(offset).toBe(10_000);
    const left = leaseRemainingMs("2026-11-29T12:00:30.000Z", offset, Date.parse("2026-11-29T12:00:00.000Z"));
    expect(left).toBe(20_000);
  });

  it("has no countdown without a lease and treats a bad server time as no offset", () => {
    expect(leaseRemainingMs(null, 0, 0)).toBeNull();
    expect(clockOffset("not a date", 5)).toBe(0);
  });

  it.each([
    [null, ""],
    [-5, "expired"],
    [0, "expired"],
    [1234, "1.2 s"],
    [59_949, "59.9 s"],
    [125_000, "2 min 05 s"],
  ])("formats %j ms as %j", (ms, want) => {
    expect(formatCountdown(ms)).toBe(want);
  });
});

describe("release delay countdown", () => {
  const now = Date.parse("2026-11-29T12:00:00.000Z");
  // given an event as the queue view lists it, want the ms until it is ready again and the label.
  const cases: Array<[string, { state: string; availableAt?: string | null }, number | null, string]> = [
    [
      "a pending event released with 30 s left",
      { state: "pending", availableAt: "2026-11-29T12:00:30.000Z" },
      30_000,
      "in 30.0 s",
    ],
    [
      "a pending event whose delay has ended",
      { state: "pending", availableAt: "2026-11-29T11:59:00.000Z" },
      null,
      "ready",
    ],
    ["a never released event", { state: "pending", availableAt: null }, null, "ready"],
    [
      "a leased event released before",
      { state: "leased", availableAt: "2026-11-29T12:00:30.000Z" },
      null,
      "ready",
    ],
  ];
  for (const [name, event, ms, label] of cases) {
    it(`says ${label} for ${name}`, () => {
      expect(delayRemainingMs(event, 0, now)).toBe(ms);
      expect(formatAvailableIn(delayRemainingMs(event, 0, now))).toBe(label);
    });
  }

  it("counts on the kernel's clock", () => {
    const event = { state: "pending", availableAt: "2026-11-29T12:00:30.000Z" };
    expect(delayRemainingMs(event, 10_000, now)).toBe(20_000);
  });
});

describe("queue summary", () => {
  it("counts every state, zero when absent", () => {
    expect(countByState([{ state: "leased" }, { state: "acked" }, { state: "acked" }])).toEqual({
      pending: 0,
      leased: 1,
      acked: 2,
      failed: 0,
    });
  });
});

describe("event injection", () => {
  const ctx = { podId: "pod_1", now: new Date("2026-11-29T12:00:00.000Z") };

  it("offers a payload matching each documented type", () => {
    expect(payloadTemplate("task.assigned", ctx)).toMatchObject({
      title: expect.any(String),
      taskId: expect.any(String),
    });
    expect(payloadTemplate("heartbeat.tick", ctx)).toEqual({ tickAt: "2026-11-29T12:00:00.000Z" });
    expect(payloadTemplate("mention.received", ctx)).toMatchObject({
      podId: "pod_1",
      mention: expect.any(String),
    });
    expect(payloadTemplate("vendor.custom", ctx)).toEqual({});
  });

  it.each([
    ["", {}],
    ['{"a": 1}', { a: 1 }],
  ])("accepts %j as a payload", (text, want) => {
    expect(parsePayload(text)).toEqual(want);
  });

  it.each(["[1]", "null", "42", "{oops"])("rejects %j with a message", (text) => {
    expect(parsePayload(text)).toBeInstanceOf(Error);
  });
});

describe("token hand-over in the URL fragment", () => {
  it("takes the token and keeps the rest of the fragment", () => {
    expect(takeTokenFromHash("#token=cm_user_abc&pod=pod_1")).toEqual({
      token: "cm_user_abc",
      hash: "#pod=pod_1",
    });
    expect(takeTokenFromHash("#token=cm_user_abc")).toEqual({ token: "cm_user_abc", hash: "" });
    expect(takeTokenFromHash("")).toEqual({ token: null, hash: "" });
  });
});
