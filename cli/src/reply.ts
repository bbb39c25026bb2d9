/**
 * What of a CLI's reply is posted, in how many messages, and under which idempotency keys.
 *
 * Pure functions only. The keys are derived from the event id alone, so a turn that is retried
 * after a crash between "posted" and "acked" re-sends the same keys and the kernel answers the
 * original post instead of posting twice (CAP `Idempotency-Key`, 1–255 printable ASCII).
 */
import { createHash } from "node:crypto";
import { isHeartbeatType } from "./turn.js";

export const DEFAULT_MAX_MESSAGE_BYTES = 60_000;

/** False for replies that mean "nothing to say": empty, NO_REPLY, or HEARTBEAT_OK on a heartbeat. */
export function shouldPost(text: string, eventType: string): boolean {
  const t = text.trim();
  if (t === "" || t === "NO_REPLY") return false;
  if (t === "HEARTBEAT_OK" && isHeartbeatType(eventType)) return false;
  return true;
}

const utf8Bytes = (s: string): number => Buffer.byteLength(s, "utf8");

/** Splits at code points, never inside one: the last resort for a single over-long word. */
function hardSplit(text: string, maxBytes: number): string[] {
  const out: string[] = [];
  let cur = "";
  let curBytes = 0;
  for (const ch of text) {
    const b = utf8Bytes(ch);
    if (curBytes + b > maxBytes) {
      out.push(cur);
      cur = "";
      curBytes = 0;
    }
    cur += ch;
    curBytes += b;
  }
  if (cur !== "") out.push(cur);
  return out;
}

/** Pieces of `text` that each end with `sep` (except possibly the last); their concatenation is `text`. */
function splitKeeping(text: string, sep: string): string[] {
  const out: string[] = [];
  let from = 0;
  for (let at = text.indexOf(sep, from); at !== -1; at = text.indexOf(sep, from)) {
    out.push(text.slice(from, at + sep.length));
    from = at + sep.length;
  }
  if (from < text.length) out.push(text.slice(from));
  return out;
}

const SEPARATORS = ["\n\n", "\n", " "];

/**
 * Greedy packing at the coarsest boundary that fits; concatenating the result gives `text` back.
 * A part may exceed the budget only by trailing separator whitespace, which splitReply trims.
 */
function pack(text: string, maxBytes: number, level: number): string[] {
  if (utf8Bytes(text) <= maxBytes) return [text];
  const sep = SEPARATORS[level];
  if (sep === undefined) return hardSplit(text, maxBytes);
  const out: string[] = [];
  let cur = "";
  let curBytes = 0;
  for (const piece of splitKeeping(text, sep)) {
    const b = utf8Bytes(piece);
    // A trailing separator is cut off when the part ends there, so it does not count toward fitting.
    const core = piece.endsWith(sep) ? b - utf8Bytes(sep) : b;
    if (curBytes + core <= maxBytes) {
      cur += piece;
      curBytes += b;
      continue;
    }
    if (cur !== "") out.push(cur);
    if (core <= maxBytes) {
      cur = piece;
      curBytes = b;
    } else {
      const sub = pack(piece, maxBytes, level + 1);
      out.push(...sub.slice(0, -1));
      cur = sub.at(-1) ?? "";
      curBytes = utf8Bytes(cur);
    }
  }
  if (cur !== "") out.push(cur);
  return out;
}

/**
 * Splits a reply into posts of at most `maxBytes` UTF-8 bytes, preferring paragraph breaks, then
 * line breaks, then spaces, and only then any code point boundary. Whitespace at the cut points is
 * dropped (a post does not start or end with a blank line); parts that are only whitespace go.
 */
export function splitReply(text: string, maxBytes: number = DEFAULT_MAX_MESSAGE_BYTES): string[] {
  if (!Number.isInteger(maxBytes) || maxBytes < 4) {
    throw new RangeError(`maxBytes must be an integer of at least 4 (one UTF-8 code point), got ${maxBytes}`);
  }
  if (text.trim() === "") return [];
  if (utf8Bytes(text) <= maxBytes) return [text];
  return pack(text, maxBytes, 0)
    .map((part) => part.replace(/^\n+/, "").trimEnd())
    .filter((part) => part !== "");
}

const PRINTABLE_ID = /^[\x21-\x7e]{1,200}$/;

/**
 * The Idempotency-Key of part `partIndex` of the reply to `eventId`. Readable when the id is short
 * printable ASCII; otherwise a SHA-256 of the id, so any id yields a key CAP accepts.
 */
export function idempotencyKey(eventId: string, partIndex: number): string {
  if (!Number.isInteger(partIndex) || partIndex < 0) throw new RangeError(`bad part index ${partIndex}`);
  return `reply:${keyBase(eventId)}:${partIndex}`;
}

/** The Idempotency-Key of the one "stopped" note to a cancelled event: never two notes for one event. */
export function stopNoteKey(eventId: string): string {
  return `stopped:${keyBase(eventId)}`;
}

function keyBase(eventId: string): string {
  return PRINTABLE_ID.test(eventId)
    ? eventId
    : `sha256-${createHash("sha256").update(eventId, "utf8").digest("hex")}`;
}

/** The one-line note a stopped turn posts when the installation asks for it (`attach --stop-note`). */
export function stopNote(reason: string): string {
  if (reason === "requested") return "Stopped.";
  if (reason === "superseded") return "Stopped: a newer message came in.";
  return `Stopped: ${reason.replace(/\s+/g, " ").trim()}`;
}
