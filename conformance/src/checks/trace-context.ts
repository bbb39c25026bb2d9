/**
 * W3C Trace Context level 1 as the `trace` checks and the driver's `trace` scenario read it: the parts of a
 * traceparent and whether it is valid, the members of a well-formed tracestate, fresh values the suite can
 * recognise anywhere (a random trace-id, tracestate members with keys unique to one call), and the context
 * an event says it carries. Pure functions: no request, no judgement.
 */
import { randomBytes } from "node:crypto";

/** The parts of a valid traceparent. */
export interface Traceparent {
  version: string;
  traceId: string;
  parentId: string;
  flags: string;
}

const hex = (bytes: number) => randomBytes(bytes).toString("hex");
const zeros = /^0+$/;
const SHAPE = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/** A traceparent as W3C Trace Context level 1 reads it, or undefined when it is not one. */
export function parseTraceparent(value: unknown): Traceparent | undefined {
  if (typeof value !== "string" || value.length > 256) return undefined;
  const m = SHAPE.exec(value);
  if (!m) return undefined;
  const [, version, traceId, parentId, flags, tail] = m as unknown as string[];
  if (!version || !traceId || !parentId || !flags) return undefined;
  if (version === "ff" || zeros.test(traceId) || zeros.test(parentId)) return undefined;
  if (version === "00" && tail !== undefined) return undefined;
  return { version, traceId, parentId, flags };
}

export const isSampled = (tp: Traceparent) => (Number.parseInt(tp.flags, 16) & 1) === 1;

/** A fresh, valid version-00 traceparent; `sampled` sets the flags to 01, else 00. */
export function freshTraceparent(sampled = true): string {
  return `00-${hex(16)}-${hex(8)}-${sampled ? "01" : "00"}`;
}

const KEY = /^([a-z0-9][a-z0-9_\-*/]{0,255}|[a-z0-9][a-z0-9_\-*/]{0,240}@[a-z][a-z0-9_\-*/]{0,13})$/;
const VALUE = /^[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/;

/** The members of a tracestate, or undefined when it is not a well-formed one (W3C list rules). */
export function tracestateMembers(value: unknown): string[] | undefined {
  if (typeof value !== "string") return undefined;
  const members = value
    .split(",")
    .map((m) => m.trim())
    .filter((m) => m !== "");
  if (members.length === 0 || members.length > 32) return undefined;
  for (const m of members) {
    const eq = m.indexOf("=");
    if (eq < 1 || !KEY.test(m.slice(0, eq)) || !VALUE.test(m.slice(eq + 1))) return undefined;
  }
  return members;
}

/**
 * `n` well-formed tracestate members of `size` bytes each (at least 12), keys unique to this call: the
 * suite can tell its own members from anything a kernel adds.
 */
export function members(n: number, size = 12): string[] {
  const tag = hex(3);
  return Array.from({ length: n }, (_, i) => {
    const key = `cc${tag}${i}`;
    return `${key}=${"v".repeat(Math.max(1, size - key.length - 1))}`;
  });
}

/** What an event says its trace context is (its `traceContext` field, when an object). */
export interface EventTrace {
  traceparent?: unknown;
  tracestate?: unknown;
  [k: string]: unknown;
}

export function traceContextOf(e: unknown): EventTrace | undefined {
  const tc = e && typeof e === "object" ? (e as { traceContext?: unknown }).traceContext : undefined;
  return tc && typeof tc === "object" && !Array.isArray(tc) ? (tc as EventTrace) : undefined;
}
