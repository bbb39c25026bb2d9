/**
 * readTraceContext by W3C Trace Context level 1, as a given/want table over request headers (Node's joined
 * strings and headersDistinct's arrays both), and the enqueue hook's default and replacement.
 */
import { afterEach, describe, expect, it } from "vitest";
import {
  enqueueTraceContext,
  readTraceContext,
  setEnqueueTraceHook,
  type TraceContext,
  type TraceHeaders,
} from "../../src/services/trace-context.js";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT = "00f067aa0ba902b7";
const TP = `00-${TRACE}-${PARENT}-01`;
/** n members `k<i>=v<i>` padded to `width` characters each. */
const members = (n: number, width = 6) =>
  Array.from({ length: n }, (_, i) => {
    const head = `k${i}=`;
    return head + "v".repeat(Math.max(1, width - head.length));
  });

/** Seven members of 64 characters and one that brings the list to exactly 512 bytes. */
const EXACT = `${members(7, 64).join(",")},z=${"v".repeat(55)}`;

const table: [string, TraceHeaders, TraceContext | undefined][] = [
  ["a valid version-00 traceparent", { traceparent: TP }, { traceparent: TP }],
  [
    "an unsampled one",
    { traceparent: `00-${TRACE}-${PARENT}-00` },
    { traceparent: `00-${TRACE}-${PARENT}-00` },
  ],
  ["no header", {}, undefined],
  ["an empty header", { traceparent: "" }, undefined],
  ["uppercase hex", { traceparent: TP.toUpperCase() }, undefined],
  ["an all-zero trace-id", { traceparent: `00-${"0".repeat(32)}-${PARENT}-01` }, undefined],
  ["an all-zero parent-id", { traceparent: `00-${TRACE}-${"0".repeat(16)}-01` }, undefined],
  ["version ff", { traceparent: `ff-${TRACE}-${PARENT}-01` }, undefined],
  ["a version that is not hex", { traceparent: `0g-${TRACE}-${PARENT}-01` }, undefined],
  ["version 00 with a tail", { traceparent: `${TP}-extra` }, undefined],
  ["a future version", { traceparent: `01-${TRACE}-${PARENT}-01` }, { traceparent: TP }],
  [
    "a future version with a tail (dropped)",
    { traceparent: `cc-${TRACE}-${PARENT}-01-what-ever` },
    { traceparent: TP },
  ],
  ["a future version with a tail not after '-'", { traceparent: `cc-${TRACE}-${PARENT}-01x` }, undefined],
  ["a short trace-id", { traceparent: `00-${TRACE.slice(1)}-${PARENT}-01` }, undefined],
  ["a missing separator", { traceparent: `00-${TRACE}${PARENT}-01-` }, undefined],
  ["flags that are not hex", { traceparent: `00-${TRACE}-${PARENT}-0x` }, undefined],
  ["longer than 256 characters", { traceparent: `cc-${TRACE}-${PARENT}-01-${"a".repeat(250)}` }, undefined],
  ["two headers joined by Node", { traceparent: `${TP}, ${TP}` }, undefined],
  [
    "two future-version headers joined by Node",
    { traceparent: `cc-${TRACE}-${PARENT}-01-x, ${TP}` },
    undefined,
  ],
  ["two headers as an array", { traceparent: [TP, TP] }, undefined],
  ["one header as an array", { traceparent: [TP] }, { traceparent: TP }],
  [
    "a valid tracestate",
    { traceparent: TP, tracestate: "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7" },
    { traceparent: TP, tracestate: "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7" },
  ],
  ["a tracestate without a valid traceparent", { traceparent: "nope", tracestate: "congo=1" }, undefined],
  ["a tracestate without a traceparent", { tracestate: "congo=1" }, undefined],
  [
    "a multi-tenant key and white space around members",
    { traceparent: TP, tracestate: " fw529a3039@dt=aa ,  b=1 " },
    { traceparent: TP, tracestate: "fw529a3039@dt=aa ,  b=1" },
  ],
  [
    "empty members (kept verbatim)",
    { traceparent: TP, tracestate: "a=1,,b=2," },
    { traceparent: TP, tracestate: "a=1,,b=2," },
  ],
  ["only empty members", { traceparent: TP, tracestate: " , ," }, { traceparent: TP }],
  [
    "several tracestate headers as an array (joined with ',')",
    { traceparent: TP, tracestate: ["a=1", "b=2"] },
    { traceparent: TP, tracestate: "a=1,b=2" },
  ],
  [
    "several tracestate headers joined by Node",
    { traceparent: TP, tracestate: "a=1, b=2" },
    { traceparent: TP, tracestate: "a=1, b=2" },
  ],
  [
    "32 members",
    { traceparent: TP, tracestate: members(32).join(",") },
    { traceparent: TP, tracestate: members(32).join(",") },
  ],
  ["33 members (dropped)", { traceparent: TP, tracestate: members(33).join(",") }, { traceparent: TP }],
  [
    "a malformed member drops the whole header",
    { traceparent: TP, tracestate: "a=1,B=2" },
    { traceparent: TP },
  ],
  ["a member without '='", { traceparent: TP, tracestate: "a=1,b" }, { traceparent: TP }],
  ["a value with '='", { traceparent: TP, tracestate: "a=1=2" }, { traceparent: TP }],
  ["a value that is not ASCII", { traceparent: TP, tracestate: "a=1 x\u00e9" }, { traceparent: TP }],
  ["an empty value", { traceparent: TP, tracestate: "a=" }, { traceparent: TP }],
  ["a value of 257 characters", { traceparent: TP, tracestate: `a=${"v".repeat(257)}` }, { traceparent: TP }],
  ["a key twice", { traceparent: TP, tracestate: "a=1,a=2" }, { traceparent: TP }],
  [
    "exactly 512 bytes (kept)",
    { traceparent: TP, tracestate: EXACT },
    { traceparent: TP, tracestate: EXACT },
  ],
  [
    "over 512 bytes, truncated by whole members from the end",
    { traceparent: TP, tracestate: members(10, 63).join(",") },
    { traceparent: TP, tracestate: members(8, 63).join(",") },
  ],
  [
    "one member over 512 bytes cannot be kept",
    { traceparent: TP, tracestate: `${"k".repeat(256)}=${"v".repeat(256)}` },
    { traceparent: TP },
  ],
];

describe("readTraceContext", () => {
  it("has a table of at least 25 rows", () => {
    expect(table.length).toBeGreaterThanOrEqual(25);
    expect(EXACT.length).toBe(512);
  });

  it.each(table)("reads %s", (_name, headers, want) => {
    expect(readTraceContext(headers)).toEqual(want);
  });

  it("keeps what it returns within the stored bounds", () => {
    for (const [, headers] of table) {
      const ctx = readTraceContext(headers);
      if (!ctx) continue;
      expect(ctx.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/);
      if (ctx.tracestate !== undefined) expect(Buffer.byteLength(ctx.tracestate)).toBeLessThanOrEqual(512);
    }
  });

  it("never reads baggage", () => {
    expect(readTraceContext({ traceparent: TP, baggage: "user=lily" })).toEqual({ traceparent: TP });
  });
});

describe("enqueueTraceContext", () => {
  afterEach(() => setEnqueueTraceHook(undefined));

  it("passes the received context through by default", () => {
    expect(enqueueTraceContext({ traceparent: TP }, (ctx) => ctx)).toEqual({ traceparent: TP });
    expect(enqueueTraceContext(undefined, (ctx) => ctx)).toBeUndefined();
  });

  it("is replaced by a hook, and restored", () => {
    const child = `00-${TRACE}-${"1".repeat(16)}-01`;
    setEnqueueTraceHook((received, enqueue) => enqueue(received ? { traceparent: child } : undefined));
    expect(enqueueTraceContext({ traceparent: TP }, (ctx) => ctx)).toEqual({ traceparent: child });
    setEnqueueTraceHook(undefined);
    expect(enqueueTraceContext({ traceparent: TP }, (ctx) => ctx)).toEqual({ traceparent: TP });
  });
});
