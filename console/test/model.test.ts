import { describe, expect, it } from "vitest";
import {
  cancellerLabel,
  cancelReasonText,
  clockOffset,
  countByState,
  delayRemainingMs,
  formatAvailableIn,
  formatCountdown,
  isRunning,
  leaseRemainingMs,
  parsePayload,
  payloadTemplate,
  stopErrorText,
  stopOutcome,
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
    expect(
      countByState([{ state: "leased" }, { state: "acked" }, { state: "acked" }, { state: "cancelled" }]),
    ).toEqual({
      pending: 0,
      leased: 1,
      acked: 2,
      failed: 0,
      cancelled: 1,
    });
  });
});

describe("stopping a running delivery", () => {
  const now = Date.parse("2026-11-29T12:00:00.000Z");
  // given an event as the queue view lists it, want whether it offers Stop.
  const cases: Array<[string, { state: string; leaseExpiresAt?: string | null }, number, boolean]> = [
    [
      "a leased event with 20 s left",
      { state: "leased", leaseExpiresAt: "2026-11-29T12:00:20.000Z" },
      0,
      true,
    ],
    [
      "a leased event whose lease ended",
      { state: "leased", leaseExpiresAt: "2026-11-29T11:59:59.000Z" },
      0,
      false,
    ],
    [
      "a leased event whose lease ended on the kernel's clock, which runs 30 s ahead",
      { state: "leased", leaseExpiresAt: "2026-11-29T12:00:20.000Z" },
      30_000,
      false,
    ],
    ["a leased event without a lease end", { state: "leased", leaseExpiresAt: null }, 0, false],
    ["a pending event", { state: "pending", leaseExpiresAt: null }, 0, false],
    ["an acked event", { state: "acked", leaseExpiresAt: "2026-11-29T12:00:20.000Z" }, 0, false],
    [
      "a cancelled event that keeps its lease end",
      { state: "cancelled", leaseExpiresAt: "2026-11-29T12:00:20.000Z" },
      0,
      false,
    ],
  ];
  for (const [name, event, offset, want] of cases) {
    it(`${want ? "offers" : "does not offer"} Stop on ${name}`, () => {
      expect(isRunning(event, offset, now)).toBe(want);
    });
  }

  it.each([
    [{ kind: "human", id: "usr_me" }, "usr_me", "you"],
    [{ kind: "operator", id: "usr_me" }, "usr_me", "you"],
    [{ kind: "human", id: "usr_other" }, "usr_me", "human usr_other"],
    [{ kind: "operator", id: "usr_ops" }, "usr_me", "operator usr_ops"],
    [{ kind: "kernel", id: null }, "usr_me", "the kernel"],
    [{ kind: "agent", id: "agt_1" }, "usr_me", "the agent (agt_1)"],
    [{ kind: "agent", id: "usr_me" }, "usr_me", "the agent (usr_me)"],
    [null, "usr_me", "unknown"],
  ])("names the canceller %j, seen by %s, as %j", (by, me, want) => {
    expect(cancellerLabel(by, me)).toBe(want);
  });

  it.each([
    ["requested", "stopped on request"],
    [null, "stopped on request"],
    ["superseded", "superseded by a newer message"],
    ["wrong repository", "wrong repository"],
  ])("reads the reason %j as %j", (reason, want) => {
    expect(cancelReasonText(reason)).toBe(want);
  });

  it("says whether the Stop changed anything, from the kernel's answer", () => {
    expect(stopOutcome("evt_1", { status: "cancelled", changed: true })).toMatch(/^Stopped evt_1/);
    expect(stopOutcome("evt_1", { status: "acked", changed: false })).toBe(
      "Nothing to stop: evt_1 was already acked.",
    );
  });

  it("explains the errors a Stop can meet, and keeps the kernel's own message and code", () => {
    expect(stopErrorText({ status: 404, code: "route_not_found", message: "Route not found" })).toBe(
      "this kernel does not offer cancel (feature `cancel`) — Route not found (route_not_found)",
    );
    expect(stopErrorText({ status: 429, code: "rate_limited", message: "Slow down" })).toMatch(
      /^too many requests.*\(rate_limited\)$/,
    );
    expect(stopErrorText({ status: 409, code: "something_new", message: "New rule" })).toBe(
      "New rule (something_new)",
    );
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
