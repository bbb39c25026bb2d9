import { describe, expect, it } from "vitest";
import { timeOf } from "../public/js/model.js";
import {
  badLinkText,
  buildTimeline,
  describeEntry,
  formatOffset,
  laneOf,
  POD_LANE,
  parseRoute,
  type TraceEntry,
  type TraceView,
  traceErrorText,
  traceHref,
  traceIdOf,
} from "../public/js/trace-model.js";

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const at = (ms: number) => new Date(Date.parse("2026-11-29T12:00:00.000Z") + ms).toISOString();

/** One human message fanned out to two agents, as the design's TraceView shape has it. */
const fanOut: TraceView = {
  traceId: TRACE_ID,
  message: {
    id: "msg_1",
    podId: "pod_1",
    authorKind: "human",
    authorName: "lily",
    createdAt: at(0),
    traceContext: { traceparent: `00-${TRACE_ID}-00f067aa0ba902b7-01` },
  },
  events: [
    { id: "evt_e", agentName: "echo", type: "mention.received", state: "acked", createdAt: at(0) },
    { id: "evt_h", agentName: "helper", type: "message.posted", state: "cancelled", createdAt: at(0) },
  ],
  entries: [
    { at: at(0), kind: "message.posted", messageId: "msg_1" },
    { at: at(0), kind: "event.enqueued", eventId: "evt_e", agentName: "echo" },
    { at: at(0), kind: "event.enqueued", eventId: "evt_h", agentName: "helper" },
    {
      at: at(12),
      kind: "delivery.claimed",
      eventId: "evt_e",
      agentName: "echo",
      attempt: 1,
      leaseExpiresAt: at(30_012),
    },
    { at: at(30_500), kind: "delivery.expired", eventId: "evt_e", agentName: "echo", attempt: 1 },
    {
      at: at(30_500),
      kind: "delivery.claimed",
      eventId: "evt_e",
      agentName: "echo",
      attempt: 2,
      leaseExpiresAt: at(60_500),
    },
    {
      at: at(31_000),
      kind: "delivery.renewed",
      eventId: "evt_e",
      agentName: "echo",
      leaseExpiresAt: at(61_000),
    },
    { at: at(31_250), kind: "reply.posted", agentName: "echo", messageId: "msg_2", traceId: TRACE_ID },
    { at: at(31_300), kind: "event.acked", eventId: "evt_e", agentName: "echo", outcome: "posted" },
    { at: at(40_000), kind: "delivery.released", eventId: "evt_h", attempt: 1, reason: "provider down" },
    { at: at(125_000), kind: "event.cancelled", eventId: "evt_h", reason: "superseded" },
  ],
};

describe("the trace view's hash routes", () => {
  it.each([
    ["", { view: "pod" }],
    ["#/", { view: "pod" }],
    ["#token=cm_user_x", { view: "pod" }],
    ["#/traces", { view: "pod" }],
    ["#/trace/pod_1/evt_9", { view: "trace", podId: "pod_1", eventId: "evt_9" }],
    ["#/trace/pod_1/message/msg_9", { view: "trace", podId: "pod_1", messageId: "msg_9" }],
    ["#/trace/pod%201/evt%2F9", { view: "trace", podId: "pod 1", eventId: "evt/9" }],
    ["#/trace", { view: "bad-trace", hash: "#/trace" }],
    ["#/trace/pod_1", { view: "bad-trace", hash: "#/trace/pod_1" }],
    ["#/trace/pod_1/", { view: "bad-trace", hash: "#/trace/pod_1/" }],
    ["#/trace/pod_1/other/msg_9", { view: "bad-trace", hash: "#/trace/pod_1/other/msg_9" }],
    ["#/trace/pod_1/message/msg_9/x", { view: "bad-trace", hash: "#/trace/pod_1/message/msg_9/x" }],
    ["#/trace/%E0%A4%A/evt_1", { view: "bad-trace", hash: "#/trace/%E0%A4%A/evt_1" }],
  ])("reads %j as %j", (hash, want) => {
    expect(parseRoute(hash)).toEqual(want);
  });

  it("writes links that read back as the same trace, whatever the ids hold", () => {
    const event = { podId: "pod/1 x", eventId: "evt#1?" };
    expect(traceHref(event)).toBe("#/trace/pod%2F1%20x/evt%231%3F");
    expect(parseRoute(traceHref(event))).toEqual({ view: "trace", ...event });
    const message = { podId: "pod_1", messageId: "msg_1" };
    expect(traceHref(message)).toBe("#/trace/pod_1/message/msg_1");
    expect(parseRoute(traceHref(message))).toEqual({ view: "trace", ...message });
  });

  it("says what a bad link should have looked like", () => {
    expect(badLinkText("#/trace/x")).toMatch(/^Not found: #\/trace\/x is not a trace link/);
  });
});

describe("relative times", () => {
  it.each([
    [0, "+0 ms"],
    [12, "+12 ms"],
    [999.4, "+999 ms"],
    [1_234, "+1.23 s"],
    [42_500, "+42.5 s"],
    [125_000, "+2 min 05 s"],
    [3_725_000, "+1 h 02 min"],
    [-12, "−12 ms"],
    [Number.NaN, ""],
  ])("formats %j ms as %j", (ms, want) => {
    expect(formatOffset(ms)).toBe(want);
  });
});

describe("the timeline", () => {
  it("has the pod's lane, then one per agent, and every entry in the kernel's order at its offset", () => {
    const { lanes, rows, startedAt } = buildTimeline(fanOut);
    expect(lanes).toEqual([POD_LANE, "echo", "helper"]);
    expect(startedAt).toBe(at(0));
    expect(rows.map((r) => [r.entry.kind, r.lane, formatOffset(r.offsetMs)])).toEqual([
      ["message.posted", POD_LANE, "+0 ms"],
      ["event.enqueued", "echo", "+0 ms"],
      ["event.enqueued", "helper", "+0 ms"],
      ["delivery.claimed", "echo", "+12 ms"],
      ["delivery.expired", "echo", "+30.5 s"],
      ["delivery.claimed", "echo", "+30.5 s"],
      ["delivery.renewed", "echo", "+31.0 s"],
      ["reply.posted", "echo", "+31.3 s"],
      ["event.acked", "echo", "+31.3 s"],
      // Entries without agentName find their lane through the event.
      ["delivery.released", "helper", "+40.0 s"],
      ["event.cancelled", "helper", "+2 min 05 s"],
    ]);
    expect(rows.map((r) => `${r.title} | ${r.detail}`)).toEqual([
      "message posted | by lily (human)",
      "event enqueued | mention.received for echo",
      "event enqueued | message.posted for helper",
      `delivery 1 claimed | lease 30.0 s, until ${timeOf(at(30_012))}`,
      "lease of delivery 1 expired | no ack before the lease ended",
      `delivery 2 claimed | lease 30.0 s, until ${timeOf(at(60_500))}`,
      `lease renewed | 30.0 s more, until ${timeOf(at(61_000))}`,
      "reply posted | by echo",
      "acked | outcome: posted",
      "delivery 1 released | reason: provider down",
      "cancelled | superseded by a newer message",
    ]);
  });

  it("draws an injected event alone: no pod lane, times from its own first record", () => {
    const injected: TraceView = {
      events: [
        { id: "evt_i", agentName: "worker", type: "task.assigned", state: "failed", createdAt: at(5) },
      ],
      entries: [
        { at: at(5), kind: "event.enqueued", eventId: "evt_i", agentName: "worker" },
        { at: at(7), kind: "delivery.claimed", eventId: "evt_i", agentName: "worker", attempt: 1 },
        { at: at(9), kind: "event.failed", eventId: "evt_i", agentName: "worker", reason: "max_attempts" },
      ],
    };
    const { lanes, rows } = buildTimeline(injected);
    expect(lanes).toEqual(["worker"]);
    expect(rows.map((r) => [formatOffset(r.offsetMs), r.title, r.detail])).toEqual([
      ["+0 ms", "event enqueued", "task.assigned for worker"],
      ["+2 ms", "delivery 1 claimed", ""],
      ["+4 ms", "failed (dead letter)", "reason: max_attempts"],
    ]);
  });

  it("has no rows for a trace with no records yet, but keeps the lanes it knows", () => {
    const empty = buildTimeline({ message: fanOut.message, events: fanOut.events, entries: [] });
    expect(empty.rows).toEqual([]);
    expect(empty.lanes).toEqual([POD_LANE, "echo", "helper"]);
    expect(empty.startedAt).toBe(at(0));
  });

  it("says when a reply carries a trace of its own", () => {
    const events = new Map();
    const reply: TraceEntry = { at: at(1), kind: "reply.posted", agentName: "echo", traceId: "f".repeat(32) };
    expect(describeEntry(reply, fanOut, events).detail).toBe(`by echo (its own trace ${"f".repeat(32)})`);
    expect(describeEntry({ ...reply, traceId: TRACE_ID }, fanOut, events).detail).toBe("by echo");
  });

  it("reads an acked event without an outcome and a record kind it does not know", () => {
    const events = new Map();
    expect(describeEntry({ at: at(0), kind: "event.acked" }, fanOut, events)).toEqual({
      title: "acked",
      detail: "no outcome",
    });
    expect(describeEntry({ at: at(0), kind: "delivery.paused", reason: "why" }, fanOut, events)).toEqual({
      title: "delivery.paused",
      detail: "why",
    });
    expect(laneOf({ at: at(0), kind: "delivery.paused" }, events)).toBe(POD_LANE);
  });
});

describe("trace ids", () => {
  it("reads the trace-id of a traceparent, and nothing from a malformed one", () => {
    expect(traceIdOf({ traceparent: `00-${TRACE_ID}-00f067aa0ba902b7-01` })).toBe(TRACE_ID);
    expect(traceIdOf({ traceparent: "garbage" })).toBeUndefined();
    expect(traceIdOf(undefined)).toBeUndefined();
  });
});

describe("why a trace cannot be shown", () => {
  const event = { podId: "pod_1", eventId: "evt_1" };
  const message = { podId: "pod_1", messageId: "msg_1" };
  it.each([
    [
      { status: 404, code: "pod_not_found", message: "No such pod." },
      event,
      "Not found: pod pod_1 does not exist, or you are not a member of it.",
    ],
    [
      { status: 404, code: "event_not_found", message: "x" },
      event,
      "Not found: there is no event evt_1 in pod pod_1.",
    ],
    [
      { status: 404, code: "message_not_found", message: "x" },
      message,
      "Not found: there is no message msg_1 in pod pod_1.",
    ],
    [
      { status: 404, code: "route_not_found", message: "x" },
      event,
      "This kernel has no trace view (its trace routes answer route_not_found).",
    ],
    [
      { status: 403, code: "forbidden", message: "No." },
      event,
      "You may not see this trace: No. (forbidden)",
    ],
    [
      { status: 0, code: "network_error", message: "The kernel did not answer (reset)." },
      event,
      "The kernel did not answer (reset).",
    ],
    [
      { status: 503, code: "store_unavailable", message: "Busy." },
      event,
      "The trace could not be read: Busy. (store_unavailable)",
    ],
  ])("%j for %j", (err, route, want) => {
    expect(traceErrorText(err, route)).toBe(want);
  });
});
