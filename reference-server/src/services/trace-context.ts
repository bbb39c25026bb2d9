/**
 * W3C Trace Context (CAP feature `trace-context`): reads `traceparent` and `tracestate` from a request's
 * headers by W3C Trace Context level 1, and the hook through which every enqueue passes the context its
 * events carry. `baggage` is never read. The tracing module (src/tracing) replaces the hook when
 * OpenTelemetry is on, so that events name the producer span it records.
 *
 * Must never: throw on any header value, return a context that is not valid, or invent a parent-id.
 */
import type { IncomingHttpHeaders } from "node:http";

export interface TraceContext {
  traceparent: string;
  tracestate?: string;
}

/** Headers as Node gives them (duplicates joined with ", ") or as `headersDistinct` gives them (arrays). */
export type TraceHeaders = IncomingHttpHeaders | Record<string, string | string[] | undefined>;

/** Longest `traceparent` read: a higher version may carry a tail, but not an unbounded one. */
const MAX_TRACEPARENT = 256;
const MAX_TRACESTATE_BYTES = 512;
const MAX_TRACESTATE_MEMBERS = 32;

const HEX2 = /^[0-9a-f]{2}$/;
const TRACE_ID = /^[0-9a-f]{32}$/;
const PARENT_ID = /^[0-9a-f]{16}$/;
const ZERO_TRACE_ID = "0".repeat(32);
const ZERO_PARENT_ID = "0".repeat(16);

/** W3C tracestate key: a simple key, or `tenant@system`. */
const KEY = /^(?:[a-z0-9][a-z0-9_\-*/]{0,255}|[a-z0-9][a-z0-9_\-*/]{0,240}@[a-z][a-z0-9_\-*/]{0,13})$/;
/** W3C tracestate value: 1–256 printable ASCII characters but `,` and `=`, the last not a space. */
const VALUE = /^[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/;
/** Optional white space around list members (RFC 9110 OWS). */
const OWS = /^[ \t]+|[ \t]+$/g;

/** The normalised `traceparent` (version 00) of a header value, or undefined when it is not valid. */
export function parseTraceparent(value: string): string | undefined {
  if (value.length < 55 || value.length > MAX_TRACEPARENT) return undefined;
  // A comma is never part of a traceparent: Node joins repeated headers with ", ".
  if (value.includes(",")) return undefined;
  const version = value.slice(0, 2);
  if (!HEX2.test(version) || version === "ff" || value[2] !== "-") return undefined;
  if (version === "00" && value.length !== 55) return undefined;
  if (value.length > 55 && value[55] !== "-") return undefined;
  const traceId = value.slice(3, 35);
  const parentId = value.slice(36, 52);
  const flags = value.slice(53, 55);
  if (value[35] !== "-" || value[52] !== "-") return undefined;
  if (!TRACE_ID.test(traceId) || traceId === ZERO_TRACE_ID) return undefined;
  if (!PARENT_ID.test(parentId) || parentId === ZERO_PARENT_ID) return undefined;
  if (!HEX2.test(flags)) return undefined;
  return `00-${traceId}-${parentId}-${flags}`;
}

/**
 * The `tracestate` to keep of a header value (several headers joined with ","): verbatim when valid and at
 * most 512 bytes; truncated by whole members from its end when longer; undefined when it has more than 32
 * members, a malformed member, a key twice, or no member at all.
 */
export function parseTracestate(value: string): string | undefined {
  const members: string[] = [];
  const keys = new Set<string>();
  for (const raw of value.split(",")) {
    const member = raw.replace(OWS, "");
    if (member === "") continue;
    const eq = member.indexOf("=");
    if (eq <= 0) return undefined;
    const key = member.slice(0, eq);
    if (!KEY.test(key) || !VALUE.test(member.slice(eq + 1)) || keys.has(key)) return undefined;
    keys.add(key);
    members.push(member);
    if (members.length > MAX_TRACESTATE_MEMBERS) return undefined;
  }
  if (members.length === 0) return undefined;
  // The list is printable ASCII only (KEY, VALUE), so its length in characters is its length in bytes.
  const whole = value.replace(OWS, "");
  if (whole.length <= MAX_TRACESTATE_BYTES) return whole;
  let kept = members.join(",");
  while (kept.length > MAX_TRACESTATE_BYTES) {
    members.pop();
    kept = members.join(",");
  }
  return members.length > 0 ? kept : undefined;
}

/** One header's value: undefined when absent; a repeated `traceparent` is `null` (it is then ignored). */
function single(value: string | string[] | undefined): string | undefined | null {
  if (Array.isArray(value)) return value.length === 1 ? value[0] : value.length === 0 ? undefined : null;
  return value;
}

/** The valid trace context of a request's headers, or undefined (anything invalid is ignored). */
export function readTraceContext(headers: TraceHeaders): TraceContext | undefined {
  const raw = single(headers.traceparent);
  if (typeof raw !== "string") return undefined;
  const traceparent = parseTraceparent(raw);
  if (traceparent === undefined) return undefined;
  const stateHeader = headers.tracestate;
  const joined = Array.isArray(stateHeader) ? stateHeader.join(",") : stateHeader;
  const tracestate = joined === undefined ? undefined : parseTracestate(joined);
  return tracestate === undefined ? { traceparent } : { traceparent, tracestate };
}

/** The trace-id of a valid (normalised) traceparent. */
export const traceIdOf = (traceparent: string): string => traceparent.slice(3, 35);

/**
 * Runs `enqueue` with the trace context its events carry, given the context the cause received. The
 * default passes it through (tracing off: the event carries the cause's context verbatim); the tracing
 * module replaces it to record a producer span and hand out that span's context.
 */
export type EnqueueTraceHook = <T>(
  received: TraceContext | undefined,
  enqueue: (ctx: TraceContext | undefined) => T,
) => T;

const identity: EnqueueTraceHook = (received, enqueue) => enqueue(received);
let hook: EnqueueTraceHook = identity;

export function enqueueTraceContext<T>(
  received: TraceContext | undefined,
  enqueue: (ctx: TraceContext | undefined) => T,
): T {
  return hook(received, enqueue);
}

/** Replaces the enqueue hook (the tracing module, when OpenTelemetry is on); undefined restores the default. */
export function setEnqueueTraceHook(next: EnqueueTraceHook | undefined): void {
  hook = next ?? identity;
}
