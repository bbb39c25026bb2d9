// @ts-check
/**
 * The console's pure logic, without the DOM (unit-tested in Node): lease and release-delay countdowns on the
 * kernel's clock, queue summaries, payload templates for injected events, token hand-over through the URL
 * fragment.
 */

export const STATES = /** @type {const} */ (["pending", "leased", "acked", "failed"]);

/** How far the kernel's clock is ahead of ours, from the `now` a queue view carries. */
export function clockOffset(/** @type {string} */ serverNowIso, /** @type {number} */ localNowMs) {
  const server = Date.parse(serverNowIso);
  return Number.isFinite(server) ? server - localNowMs : 0;
}

/** Milliseconds left on a lease, on the kernel's clock; null without a lease. */
export function leaseRemainingMs(
  /** @type {string | null | undefined} */ leaseExpiresAt,
  /** @type {number} */ offsetMs,
  /** @type {number} */ localNowMs,
) {
  if (!leaseExpiresAt) return null;
  const end = Date.parse(leaseExpiresAt);
  return Number.isFinite(end) ? end - (localNowMs + offsetMs) : null;
}

/** "12.3 s", "2 min 05 s", or "expired". */
export function formatCountdown(/** @type {number | null} */ ms) {
  if (ms === null) return "";
  if (ms <= 0) return "expired";
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`;
}

/**
 * Milliseconds until a released event is ready again (feature `release`), on the kernel's clock: positive
 * only for a `pending` event whose release delay has not ended; null otherwise (never released, or ready).
 */
export function delayRemainingMs(
  /** @type {{state: string, availableAt?: string | null}} */ e,
  /** @type {number} */ offsetMs,
  /** @type {number} */ localNowMs,
) {
  if (e.state !== "pending" || !e.availableAt) return null;
  const ms = leaseRemainingMs(e.availableAt, offsetMs, localNowMs);
  return ms !== null && ms > 0 ? ms : null;
}

/** "in 12.3 s" while a release delay runs, "ready" once it has ended. */
export function formatAvailableIn(/** @type {number | null} */ ms) {
  return ms !== null && ms > 0 ? `in ${formatCountdown(ms)}` : "ready";
}

/** Counts of events by state, every state present (0 when none). */
export function countByState(/** @type {{state: string}[]} */ events) {
  /** @type {Record<string, number>} */
  const counts = Object.fromEntries(STATES.map((s) => [s, 0]));
  for (const e of events) counts[e.state] = (counts[e.state] ?? 0) + 1;
  return counts;
}

/** A short time of day for lists. */
export function timeOf(/** @type {string} */ iso) {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? "" : d.toLocaleTimeString([], { hour12: false });
}

/** Payload templates for the documented v1 types; anything else starts as `{}`. */
export function payloadTemplate(/** @type {string} */ type, /** @type {{podId: string, now: Date}} */ ctx) {
  switch (type) {
    case "task.assigned":
      return {
        taskId: `task_${ctx.now.getTime().toString(36)}`,
        title: "Triage new issues",
        description: "Label everything opened today.",
      };
    case "heartbeat.tick":
      return { tickAt: ctx.now.toISOString() };
    case "summary.ready":
      return {
        summaryId: `sum_${ctx.now.getTime().toString(36)}`,
        content: "Yesterday: the team agreed to ship leases first.",
      };
    case "message.posted":
    case "mention.received":
      return {
        messageId: "msg_injected",
        podId: ctx.podId,
        content: "Hello from the dev console",
        author: { id: "usr_console", kind: "human", name: "console" },
        ...(type === "mention.received" ? { mention: "agent-name" } : {}),
      };
    default:
      return {};
  }
}

export const DOCUMENTED_TYPES = [
  "task.assigned",
  "message.posted",
  "mention.received",
  "heartbeat.tick",
  "summary.ready",
];

/** Parses the payload textarea: a JSON object, or an Error saying what is wrong. */
export function parsePayload(/** @type {string} */ text) {
  let value;
  try {
    value = JSON.parse(text.trim() || "{}");
  } catch (err) {
    return new Error(`The payload is not JSON: ${/** @type {Error} */ (err).message}`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return new Error("The payload must be a JSON object.");
  }
  return /** @type {Record<string, unknown>} */ (value);
}

/**
 * A token handed over in the URL fragment (`/console/#token=cm_user_…`, what `cap-kernel demo` prints):
 * fragments never reach a server or its logs. Returns the token and the fragment without it.
 */
export function takeTokenFromHash(/** @type {string} */ hash) {
  const params = new URLSearchParams(hash.replace(/^#/, ""));
  const token = params.get("token");
  params.delete("token");
  const rest = params.toString();
  return { token, hash: rest ? `#${rest}` : "" };
}

/** A stable key for an agent identity. */
export function agentKey(/** @type {{agentName: string, instanceId: string}} */ a) {
  return `${a.agentName}/${a.instanceId}`;
}
