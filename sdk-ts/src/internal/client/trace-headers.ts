/**
 * W3C Trace Context (level 1) as the headers of one request: `traceparent`, and `tracestate` beside a
 * valid one (CAP feature `trace-context`). A value that is not a valid header of its kind is left out:
 * a kernel would ignore it anyway, and a control character in it would make `fetch` refuse the whole
 * request. It must never throw, and never send `baggage`.
 */
import type { TraceContext } from "../../types.js";

/**
 * `version-traceid-parentid-flags`, lowercase hex, version not `ff`, neither id all zeros; only a version
 * above `00` may go on after the flags (checked below), with a `-`.
 */
const TRACEPARENT = /^(?!ff)([0-9a-f]{2})-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}(-[ -~]*)?$/;
/** Printable ASCII with something besides spaces: all a `tracestate` list can be (its members are the kernel's to judge). */
const TRACESTATE = /^ *[!-~][ -~]*$/;

/** Whether `value` is a valid `traceparent` (at most 256 characters: all a kernel reads). */
export function isTraceparent(value: unknown): value is string {
  if (typeof value !== "string" || value.length > 256) return false;
  const m = TRACEPARENT.exec(value);
  return m !== null && (m[1] !== "00" || m[2] === undefined);
}

/**
 * `context` when its `traceparent` is valid (without a `tracestate` that is not), else `undefined`:
 * what a request sends as its headers.
 */
export function validTraceContext(context: TraceContext | undefined): TraceContext | undefined {
  if (!context || !isTraceparent(context.traceparent)) return undefined;
  const { traceparent, tracestate } = context;
  return typeof tracestate === "string" && TRACESTATE.test(tracestate)
    ? { traceparent, tracestate }
    : { traceparent };
}
