// @ts-check
/**
 * The trace view's pure logic, without the DOM (unit-tested in Node): the hash routes that open it, the
 * timeline it draws from the kernel's TraceView (one lane for the pod's messages, one per agent, times
 * relative to the first record), how each record reads, and what an error means here.
 *
 * Must never: invent a record the kernel did not send, or reorder the kernel's entries (it sorts them).
 */
import { cancelReasonText, timeOf } from "./model.js";

/**
 * @typedef {{traceparent: string, tracestate?: string}} TraceContext
 * @typedef {{
 *   at: string, kind: string, eventId?: string, agentName?: string, attempt?: number,
 *   leaseExpiresAt?: string, reason?: string, outcome?: string, messageId?: string, traceId?: string,
 * }} TraceEntry
 * @typedef {{id: string, agentName: string, type: string, state: string, createdAt: string,
 *   traceContext?: TraceContext}} TraceEvent
 * @typedef {{id: string, podId: string, authorKind: string, authorName: string, createdAt: string,
 *   traceContext?: TraceContext}} TraceMessage
 * @typedef {{traceId?: string, message?: TraceMessage, events: TraceEvent[], entries: TraceEntry[]}} TraceView
 * @typedef {{view: "pod"}
 *   | {view: "trace", podId: string, eventId: string}
 *   | {view: "trace", podId: string, messageId: string}
 *   | {view: "bad-trace", hash: string}} Route
 */

/** The lane of the pod's own messages (the human's post); every other lane is an agent's name. */
export const POD_LANE = "pod";

const decode = (/** @type {string} */ s) => {
  try {
    return decodeURIComponent(s);
  } catch {
    return "";
  }
};

/**
 * Reads the console's hash route: `#/trace/<podId>/<eventId>` and `#/trace/<podId>/message/<messageId>`
 * open a trace; any other `#/trace…` is a bad link (shown as not found); everything else is the pod view.
 * @returns {Route}
 */
export function parseRoute(/** @type {string} */ hash) {
  const path = hash.replace(/^#/, "");
  if (!/^\/trace(\/|$)/.test(path)) return { view: "pod" };
  const parts = path.split("/").slice(2).map(decode);
  const [podId = "", second = "", third = ""] = parts;
  if (parts.some((p) => p === "")) return { view: "bad-trace", hash };
  if (parts.length === 2) return { view: "trace", podId, eventId: second };
  if (parts.length === 3 && second === "message") return { view: "trace", podId, messageId: third };
  return { view: "bad-trace", hash };
}

/** The hash link that opens a trace, for an event or a message of a pod. */
export function traceHref(/** @type {{podId: string, eventId?: string, messageId?: string}} */ to) {
  const enc = encodeURIComponent;
  return to.messageId
    ? `#/trace/${enc(to.podId)}/message/${enc(to.messageId)}`
    : `#/trace/${enc(to.podId)}/${enc(to.eventId ?? "")}`;
}

/** "+0 ms", "+12 ms", "+1.25 s", "+42.5 s", "+2 min 05 s", "+1 h 02 min"; a negative offset gets "−". */
export function formatOffset(/** @type {number} */ ms) {
  if (!Number.isFinite(ms)) return "";
  const sign = ms < 0 ? "−" : "+";
  const a = Math.abs(ms);
  if (a < 1000) return `${sign}${Math.round(a)} ms`;
  if (a < 10_000) return `${sign}${(a / 1000).toFixed(2)} s`;
  if (a < 60_000) return `${sign}${(a / 1000).toFixed(1)} s`;
  const s = Math.floor(a / 1000);
  if (s < 3600) return `${sign}${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`;
  return `${sign}${Math.floor(s / 3600)} h ${String(Math.floor(s / 60) % 60).padStart(2, "0")} min`;
}

/** The trace-id of a `traceparent` (`00-<traceid>-<parentid>-<flags>`), or undefined. */
export function traceIdOf(/** @type {TraceContext | undefined} */ ctx) {
  const m = /^[0-9a-f]{2}-([0-9a-f]{32})-/.exec(ctx?.traceparent ?? "");
  return m ? m[1] : undefined;
}

/** Which lane an entry belongs to: the human's post in the pod lane, everything else its agent's. */
export function laneOf(/** @type {TraceEntry} */ e, /** @type {Map<string, TraceEvent>} */ events) {
  if (e.kind === "message.posted") return POD_LANE;
  return e.agentName ?? (e.eventId ? events.get(e.eventId)?.agentName : undefined) ?? POD_LANE;
}

/**
 * The timeline the view draws: the lanes (the pod's, then each agent's in order of first appearance) and
 * one row per entry, in the kernel's order, with its offset from the first record.
 * @param {TraceView} view
 */
export function buildTimeline(view) {
  const events = new Map((view.events ?? []).map((e) => [e.id, e]));
  const entries = view.entries ?? [];
  const first = Date.parse(entries[0]?.at ?? view.message?.createdAt ?? "");
  /** @type {string[]} */
  const lanes = [];
  const addLane = (/** @type {string} */ lane) => {
    if (!lanes.includes(lane)) lanes.push(lane);
  };
  if (view.message || entries.some((e) => e.kind === "message.posted")) addLane(POD_LANE);
  const rows = entries.map((e) => {
    const lane = laneOf(e, events);
    addLane(lane);
    return { entry: e, lane, offsetMs: Date.parse(e.at) - first, ...describeEntry(e, view, events) };
  });
  for (const e of view.events ?? []) addLane(e.agentName);
  return { lanes, rows, startedAt: Number.isFinite(first) ? new Date(first).toISOString() : undefined };
}

/** How long from one ISO time to another, for a lease ("30.0 s"). */
function span(/** @type {string} */ from, /** @type {string | undefined} */ to) {
  const ms = Date.parse(to ?? "") - Date.parse(from);
  return Number.isFinite(ms) ? formatOffset(ms).replace(/^\+/, "") : "";
}

/**
 * What one record says, in words: a title ("delivery 2 claimed") and a detail ("lease 30.0 s, until 12:00:30").
 * @param {TraceEntry} e @param {TraceView} view @param {Map<string, TraceEvent>} events
 * @returns {{title: string, detail: string}}
 */
export function describeEntry(e, view, events) {
  const ev = e.eventId ? events.get(e.eventId) : undefined;
  const attempt = e.attempt !== undefined ? ` ${e.attempt}` : "";
  switch (e.kind) {
    case "message.posted": {
      const m = view.message;
      return {
        title: "message posted",
        detail: m ? `by ${m.authorName} (${m.authorKind})` : "",
      };
    }
    case "event.enqueued":
      return {
        title: "event enqueued",
        detail: `${ev?.type ?? "event"} for ${e.agentName ?? ev?.agentName}`,
      };
    case "delivery.claimed":
      return {
        title: `delivery${attempt} claimed`,
        detail: e.leaseExpiresAt
          ? `lease ${span(e.at, e.leaseExpiresAt)}, until ${timeOf(e.leaseExpiresAt)}`
          : "",
      };
    case "delivery.renewed":
      return {
        title: "lease renewed",
        detail: e.leaseExpiresAt
          ? `${span(e.at, e.leaseExpiresAt)} more, until ${timeOf(e.leaseExpiresAt)}`
          : "",
      };
    case "delivery.released":
      return { title: `delivery${attempt} released`, detail: e.reason ? `reason: ${e.reason}` : "" };
    case "delivery.expired":
      return { title: `lease of delivery${attempt} expired`, detail: "no ack before the lease ended" };
    case "event.acked":
      return { title: "acked", detail: e.outcome ? `outcome: ${e.outcome}` : "no outcome" };
    case "event.failed":
      return { title: "failed (dead letter)", detail: e.reason ? `reason: ${e.reason}` : "" };
    case "event.cancelled":
      return { title: "cancelled", detail: cancelReasonText(e.reason) };
    case "reply.posted": {
      const other = e.traceId && view.traceId && e.traceId !== view.traceId;
      return {
        title: "reply posted",
        detail: `by ${e.agentName ?? "an agent"}${other ? ` (its own trace ${e.traceId})` : ""}`,
      };
    }
    default:
      return { title: e.kind, detail: e.reason ?? e.outcome ?? "" };
  }
}

/**
 * Why a trace cannot be shown, for people. `err`: an ApiError's {status, code, message}; `route`: what was
 * asked for. A pod the person is not a member of answers 404 like a missing one (existence does not leak).
 * @param {{status: number, code: string, message: string}} err
 * @param {{podId: string, eventId?: string, messageId?: string}} route
 */
export function traceErrorText(err, route) {
  const what = route.messageId ? `message ${route.messageId}` : `event ${route.eventId}`;
  switch (err.code) {
    case "pod_not_found":
      return `Not found: pod ${route.podId} does not exist, or you are not a member of it.`;
    case "message_not_found":
    case "event_not_found":
      return `Not found: there is no ${what} in pod ${route.podId}.`;
    case "route_not_found":
      return "This kernel has no trace view (its trace routes answer route_not_found).";
    case "network_error":
      return err.message;
    default:
      if (err.status === 403) return `You may not see this trace: ${err.message} (${err.code})`;
      return `The trace could not be read: ${err.message} (${err.code})`;
  }
}

/** The text of a link that leads nowhere (`#/trace/…` of the wrong shape). */
export function badLinkText(/** @type {string} */ hash) {
  return `Not found: ${hash} is not a trace link (#/trace/<podId>/<eventId> or #/trace/<podId>/message/<messageId>).`;
}
