/**
 * Pure memory-section rules (brief §2.6, CAP-MEM-3..12): which keys exist, server stamping (updatedAt,
 * byteSize, default visibility; client values for them discarded), and the patch merges of the arrays.
 */
import { iso } from "../clock.js";

export const SINGLE_SECTIONS = ["soul", "long_term", "dedup_state", "shared", "runtime_meta"] as const;
export const ARRAY_SECTIONS = ["daily", "relationships"] as const;
const KNOWN = new Set<string>([...SINGLE_SECTIONS, ...ARRAY_SECTIONS]);

export type Sections = Record<string, unknown>;
type Obj = Record<string, unknown>;

export function unknownSectionKeys(sections: unknown): string[] {
  if (sections === null || typeof sections !== "object" || Array.isArray(sections)) return [];
  return Object.keys(sections).filter((k) => !KNOWN.has(k));
}

const visibility = (v: unknown) => (v === "pod" || v === "public" || v === "private" ? v : "private");

function stampSingle(input: Obj, now: number) {
  const content = String(input.content ?? "");
  return {
    content,
    visibility: visibility(input.visibility),
    updatedAt: iso(now),
    byteSize: Buffer.byteLength(content, "utf8"),
  };
}

const stampDaily = (e: Obj) => ({ date: e.date, content: e.content, visibility: visibility(e.visibility) });

const stampRelationship = (e: Obj, now: number) => ({
  otherInstanceId: e.otherInstanceId,
  notes: e.notes,
  visibility: visibility(e.visibility),
  updatedAt: iso(now),
});

/** The stored form of one section as written by a client. */
export function stampSection(key: string, value: unknown, now: number): unknown {
  if (key === "daily") return (value as Obj[]).map(stampDaily);
  if (key === "relationships") return (value as Obj[]).map((e) => stampRelationship(e, now));
  return stampSingle(value as Obj, now);
}

export function stampAll(sections: Sections, now: number): Sections {
  const out: Sections = {};
  for (const [k, v] of Object.entries(sections)) out[k] = stampSection(k, v, now);
  return out;
}

/**
 * Merge `incoming` entries into `stored` by `key`: same key replaces in place (the first stored entry with
 * that key), new keys append. An index by key keeps it linear: a search per entry made a patch of n entries
 * into an array of n cost n² comparisons (tens of thousands of daily entries fit under the size limits).
 */
export function mergeBy(stored: unknown, incoming: Obj[], key: string): Obj[] {
  const out = Array.isArray(stored) ? [...(stored as Obj[])] : [];
  const at = new Map<unknown, number>();
  out.forEach((e, i) => {
    if (!at.has(e[key])) at.set(e[key], i);
  });
  for (const entry of incoming) {
    const i = at.get(entry[key]);
    if (i !== undefined) out[i] = entry;
    else {
      at.set(entry[key], out.length);
      out.push(entry);
    }
  }
  return out;
}

/** A patch sync: replace the single sections sent, merge daily by date and relationships by otherInstanceId. */
export function patchSections(stored: Sections, sent: Sections, now: number): Sections {
  const out: Sections = { ...stored };
  for (const [k, v] of Object.entries(sent)) {
    const stamped = stampSection(k, v, now);
    if (k === "daily") out[k] = mergeBy(stored[k], stamped as Obj[], "date");
    else if (k === "relationships") out[k] = mergeBy(stored[k], stamped as Obj[], "otherInstanceId");
    else out[k] = stamped;
  }
  return out;
}
