// @ts-check
/**
 * The console's pure logic, without the DOM (unit-tested in Node): lease and release-delay countdowns on the
 * kernel's clock, queue summaries, which deliveries can be stopped and how a cancel reads, payload templates
 * for injected events, token hand-over through the URL fragment.
 */

export const STATES = /** @type {const} */ (["pending", "leased", "acked", "failed", "cancelled"]);

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

/**
 * Whether the console offers Stop on an event (feature `cancel`): a delivery a driver holds, its lease still
 * running on the kernel's clock. A lease that ended is no running turn: its event waits for the next poll.
 */
export function isRunning(
  /** @type {{state: string, leaseExpiresAt?: string | null}} */ e,
  /** @type {number} */ offsetMs,
  /** @type {number} */ localNowMs,
) {
  if (e.state !== "leased") return false;
  const ms = leaseRemainingMs(e.leaseExpiresAt, offsetMs, localNowMs);
  return ms !== null && ms > 0;
}

/**
 * Who cancelled an event, as the queue view says it: "you" for the signed-in person, "the kernel" for double
 * texting, otherwise the kind and id the kernel recorded (`cancelledBy`).
 */
export function cancellerLabel(
  /** @type {{kind?: string, id?: string | null} | null | undefined} */ by,
  /** @type {string | null | undefined} */ meId,
) {
  if (!by || typeof by !== "object" || typeof by.kind !== "string") return "unknown";
  if (meId && by.id === meId && by.kind !== "agent" && by.kind !== "kernel") return "you";
  if (by.kind === "kernel") return "the kernel";
  if (by.kind === "agent") return by.id ? `the agent (${by.id})` : "the agent";
  return by.id ? `${by.kind} ${by.id}` : by.kind;
}

/** A cancel reason for people: the kernel's two own reasons spelled out, a caller's reason as given. */
export function cancelReasonText(/** @type {string | null | undefined} */ reason) {
  if (!reason || reason === "requested") return "stopped on request";
  if (reason === "superseded") return "superseded by a newer message";
  return reason;
}

/** What a Stop did, from the kernel's answer `{ok, status, changed}` (CAP-CANCEL-2, CAP-CANCEL-3). */
export function stopOutcome(
  /** @type {string} */ eventId,
  /** @type {{status?: string, changed?: boolean} | null} */ answer,
) {
  if (answer?.changed) return `Stopped ${eventId}: its driver is told, and it is never delivered again.`;
  return `Nothing to stop: ${eventId} was already ${answer?.status ?? "settled"}.`;
}

/**
 * Why a Stop failed, for people: what the kernel's error code means here, then its own message and code.
 * `err`: an ApiError's {status, code, message}.
 */
export function stopErrorText(/** @type {{status: number, code: string, message: string}} */ err) {
  const hints = /** @type {Record<string, string>} */ ({
    route_not_found: "this kernel does not offer cancel (feature `cancel`)",
    event_not_found: "the event is not in this pod any more",
    pod_not_found: "you are not a member of this pod (any more)",
    not_pod_member: "you are not a member of this pod (any more)",
    forbidden: "you may not stop this agent's work",
    network_error: "the kernel did not answer; nothing is known to have changed",
  });
  const hint = hints[err.code] ?? (err.status === 429 ? "too many requests: try again in a moment" : "");
  const detail = `${err.message} (${err.code})`;
  return hint ? `${hint} — ${detail}` : detail;
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
