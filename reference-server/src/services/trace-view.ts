/**
 * The trace view (feature `trace-context`): one message's story from the kernel's own records, without any
 * tracing backend — the message, the events it enqueued, every delivery of each (the store's event history),
 * how each settled, and the replies its agents posted. Rooted at an event, it is the view of the event's
 * cause message, or of the event alone when no message caused it (an operator inject).
 * Who may read it: a human member of the pod or a kernel admin; anyone else gets the 404 of a pod that does
 * not exist. Must never write, or show a message or event of another pod.
 */
import type { components as Admin } from "@commonly/cap-spec/types/admin";
import { iso } from "../clock.js";
import { fail } from "../errors/registry.js";
import type { EventRecord, EventTransition, MessageRecord } from "../store/contract.js";
import { requirePodMember } from "./access.js";
import type { ServiceDeps, UserCaller } from "./deps.js";
import { traceContextOf, wireQueuedEvent } from "./operator.js";
import { traceIdOf } from "./trace-context.js";

export type TraceView = Admin["schemas"]["TraceView"];
type TraceEntry = Admin["schemas"]["TraceEntry"];
type Kind = TraceEntry["kind"];

/** Entries at the same instant, in the order a story reads. */
const KIND_ORDER: readonly Kind[] = [
  "message.posted",
  "event.enqueued",
  "delivery.claimed",
  "delivery.renewed",
  "delivery.released",
  "delivery.expired",
  "event.acked",
  "event.failed",
  "event.cancelled",
  "reply.posted",
];
const rank = new Map(KIND_ORDER.map((k, i) => [k, i]));

const KIND_OF: Record<EventTransition["kind"], Kind> = {
  renewed: "delivery.renewed",
  released: "delivery.released",
  expired: "delivery.expired",
  failed: "event.failed",
  cancelled: "event.cancelled",
};

/**
 * ISO instants of one format sort as strings; entries of one instant by the story's order, except that one
 * event's deliveries keep their order (a lease that ended and the claim that found it ended, in one ms).
 */
function byTimeThenStory(a: TraceEntry, b: TraceEntry): number {
  if (a.at !== b.at) return a.at < b.at ? -1 : 1;
  if (
    a.eventId !== undefined &&
    a.eventId === b.eventId &&
    a.attempt !== undefined &&
    b.attempt !== undefined
  )
    if (a.attempt !== b.attempt) return a.attempt - b.attempt;
  return (rank.get(a.kind) ?? 0) - (rank.get(b.kind) ?? 0);
}

/** The most replies a view lists. */
const MAX_REPLIES = 100;

const traceIdOfRecord = (r: { traceparent?: string | null }) =>
  r.traceparent ? traceIdOf(r.traceparent) : undefined;

/** `{key: value}` for a value that is set, else `{}`: the view's optional fields are absent, never null. */
const opt = <K extends string, V>(key: K, value: V | null | undefined) =>
  (value === null || value === undefined ? {} : { [key]: value }) as Partial<Record<K, V>>;

/** The ack's `result.outcome`, when the driver gave one. */
function outcomeOf(result: unknown): string | undefined {
  const outcome = (result as { outcome?: unknown } | null)?.outcome;
  return typeof outcome === "string" ? outcome : undefined;
}

/**
 * The lease delivery `attempt` was claimed with: the lease just before the first recorded change of that
 * delivery (a renewal, a release, its end), else, for the event's last delivery, the lease the row holds.
 * Null when neither tells (a delivery made before the kernel kept history).
 */
function claimLease(e: EventRecord, attempt: number, recorded: EventTransition[]): number | null {
  const first = recorded.find((t) => t.attempt === attempt && t.leaseWas !== null);
  if (first) return first.leaseWas;
  return attempt === e.attempts ? e.leaseExpiresAt : null;
}

/**
 * What the history does not hold but the event row says: its ack (terminal, kept on the row), and the end of
 * its last delivery's lease when nothing claimed it again (an ack after the lease, or a lease still ended).
 */
function fromRow(e: EventRecord, agentName: string, recorded: EventTransition[], now: number): TraceEntry[] {
  const out: TraceEntry[] = [];
  const lease = e.leaseExpiresAt;
  const lastEnded = recorded.some((t) => t.attempt === e.attempts && t.kind !== "renewed");
  const released = e.releasedAttempts === e.attempts;
  const settledAt = e.state === "acked" ? e.ackedAt : e.state === "leased" ? now : null;
  if (lease !== null && settledAt !== null && lease <= settledAt && !released && !lastEnded && e.attempts > 0)
    out.push({ at: iso(lease), kind: "delivery.expired", eventId: e.id, agentName, attempt: e.attempts });
  if (e.ackedAt !== null)
    out.push({
      at: iso(e.ackedAt),
      kind: "event.acked",
      eventId: e.id,
      agentName,
      ...opt("attempt", e.attempts > 0 ? e.attempts : null),
      ...opt("outcome", outcomeOf(e.result)),
    });
  return out;
}

export function createTraceViewService(deps: ServiceDeps) {
  const { store, clock, config } = deps;
  const leaseMs = Math.round(config.leaseSeconds * 1000);

  async function agentNames(events: EventRecord[]) {
    const names = new Map<string, string>();
    for (const id of new Set(events.map((e) => e.agentId))) {
      const identity = await store.getAgentIdentity(id);
      names.set(id, identity?.agentName ?? "?");
    }
    return names;
  }

  async function build(message: MessageRecord | null, events: EventRecord[]): Promise<TraceView> {
    const now = clock.now();
    const names = await agentNames(events);
    const nameOf = (e: EventRecord) => names.get(e.agentId) ?? "?";
    const history = await store.eventHistory(events.map((e) => e.id));
    const entries: TraceEntry[] = [];
    const rootTraceId = traceIdOfRecord(message ?? events[0] ?? {});
    if (message)
      entries.push({
        at: iso(message.createdAt),
        kind: "message.posted",
        messageId: message.id,
        ...opt("traceId", traceIdOfRecord(message)),
      });
    for (const e of events) {
      const agentName = nameOf(e);
      const recorded = history.filter((t) => t.eventId === e.id);
      entries.push({
        at: iso(e.createdAt),
        kind: "event.enqueued",
        eventId: e.id,
        agentName,
        ...opt("traceId", traceIdOfRecord(e)),
      });
      // Each delivery was claimed with now + the lease: its instant is that lease's end less the lease.
      for (let attempt = 1; attempt <= e.attempts; attempt++) {
        const lease = claimLease(e, attempt, recorded);
        if (lease !== null)
          entries.push({
            at: iso(lease - leaseMs),
            kind: "delivery.claimed",
            eventId: e.id,
            agentName,
            attempt,
            leaseExpiresAt: iso(lease),
          });
      }
      for (const t of recorded)
        entries.push({
          at: iso(t.at),
          kind: KIND_OF[t.kind],
          eventId: e.id,
          agentName,
          attempt: t.attempt,
          ...opt(
            "leaseExpiresAt",
            t.kind === "renewed" && t.leaseExpiresAt !== null ? iso(t.leaseExpiresAt) : null,
          ),
          ...opt("reason", t.reason),
        });
      entries.push(...fromRow(e, agentName, recorded, now));
    }
    if (message) {
      const byAgent = new Map<string, EventRecord[]>();
      for (const e of events) byAgent.set(e.agentId, [...(byAgent.get(e.agentId) ?? []), e]);
      const replies = await store.listReplies({
        podId: message.podId,
        after: message.id,
        agentIds: [...byAgent.keys()],
        traceId: rootTraceId ?? null,
        limit: MAX_REPLIES,
      });
      for (const r of replies) {
        const own = byAgent.get(r.author.id) ?? [];
        entries.push({
          at: iso(r.createdAt),
          kind: "reply.posted",
          messageId: r.id,
          agentName: r.author.name,
          ...opt("eventId", own.length === 1 ? own[0]?.id : undefined),
          ...opt("traceId", traceIdOfRecord(r)),
        });
      }
    }
    entries.sort(byTimeThenStory);
    return {
      ...opt("traceId", rootTraceId),
      ...(message
        ? {
            message: {
              id: message.id,
              podId: message.podId,
              authorKind: message.author.kind,
              authorName: message.author.name,
              createdAt: iso(message.createdAt),
              ...traceContextOf(message),
            },
          }
        : {}),
      events: events.map((e) => ({
        id: e.id,
        agentName: nameOf(e),
        type: e.type,
        state: wireQueuedEvent(e, undefined, now).state as TraceView["events"][number]["state"],
        createdAt: iso(e.createdAt),
        ...traceContextOf(e),
      })),
      entries,
    };
  }

  return {
    /** The view of a message of the pod (404 message_not_found for a message not in it). */
    async ofMessage(user: UserCaller, podId: string, messageId: string): Promise<TraceView> {
      await requirePodMember(store, user, podId);
      const message = await store.getMessage(messageId);
      if (!message || message.podId !== podId) fail("message_not_found");
      return build(message, await store.messageEvents(message.id));
    },

    /** The view of an event's cause message, or of the event alone (404 event_not_found outside the pod). */
    async ofEvent(user: UserCaller, podId: string, eventId: string): Promise<TraceView> {
      await requirePodMember(store, user, podId);
      const event = await store.getEvent(eventId);
      if (!event || event.podId !== podId) fail("event_not_found");
      const causeId = await store.causeOf(eventId);
      const cause = causeId === null ? null : await store.getMessage(causeId);
      if (cause && cause.podId === podId) return build(cause, await store.messageEvents(cause.id));
      return build(null, [event]);
    },
  };
}

export type TraceViewService = ReturnType<typeof createTraceViewService>;
