/**
 * Operator tools: inject any event for an installed agent (driver authors fire `task.assigned` at their
 * driver offline), list and requeue dead letters, and the per-pod queue view of the dev console.
 * Must never bypass the queue: injected events are ordinary pending events, delivered by lease like any other.
 */

import type { components as Admin } from "@commonly/cap-spec/types/admin";
import { iso } from "../clock.js";
import { fail } from "../errors/registry.js";
import { newId } from "../secrets.js";
import type { EventRecord } from "../store/contract.js";
import { requireKernelAdmin, requirePodAdmin, requirePodMember } from "./access.js";
import type { ServiceDeps, UserCaller } from "./deps.js";
import type { RegistryService } from "./registry.js";
import { enqueueTraceContext, type TraceContext } from "./trace-context.js";

export type EmitInput = Admin["schemas"]["EmitEventRequest"];

/** `now` given: a leased event whose lease has ended shows as pending (it is ready again). */
export function wireQueuedEvent(
  e: EventRecord,
  who?: { agentName: string; instanceId: string },
  now?: number,
) {
  const expired =
    now !== undefined && e.state === "leased" && e.leaseExpiresAt !== null && e.leaseExpiresAt <= now;
  // A released delivery is stored as a lease ending at availableAt; nobody holds it, so it is pending.
  const released = e.state === "leased" && e.releasedAttempts === e.attempts;
  return {
    id: e.id,
    type: e.type,
    podId: e.podId,
    ...(who ? { agentName: who.agentName, instanceId: who.instanceId } : {}),
    state: expired || released ? "pending" : e.state,
    attempts: e.attempts,
    payload: e.payload,
    createdAt: iso(e.createdAt),
    leaseExpiresAt: e.leaseExpiresAt === null || released ? null : iso(e.leaseExpiresAt),
    ackedAt: e.ackedAt === null ? null : iso(e.ackedAt),
    failedAt: e.failedAt === null ? null : iso(e.failedAt),
    failReason: e.failReason,
    availableAt: e.availableAt === null ? null : iso(e.availableAt),
    releaseReason: e.releaseReason,
    cancelReason: e.cancelReason,
    cancelledAt: e.cancelledAt === null ? null : iso(e.cancelledAt),
    cancelledBy:
      e.cancelledByKind === null || e.cancelledById === null
        ? null
        : { kind: e.cancelledByKind, id: e.cancelledById },
    ...traceContextOf(e),
  };
}

/** `{traceContext}` of a stored message or event that has one (feature `trace-context`), else `{}`. */
export function traceContextOf(r: { traceparent?: string | null; tracestate?: string | null }) {
  if (!r.traceparent) return {};
  return {
    traceContext: { traceparent: r.traceparent, ...(r.tracestate ? { tracestate: r.tracestate } : {}) },
  };
}

export function createOperatorService(deps: ServiceDeps, registry: RegistryService) {
  const { store, config, clock } = deps;

  async function names(agentIds: string[]) {
    const out = new Map<string, { agentName: string; instanceId: string }>();
    for (const id of new Set(agentIds)) {
      const i = await store.getAgentIdentity(id);
      if (i) out.set(id, { agentName: i.agentName, instanceId: i.instanceId });
    }
    return out;
  }

  /**
   * Inject without permission checks (CLI `emit` acts on the database directly); `trace` is the context the
   * inject was requested with, which the event carries (through the enqueue hook).
   */
  async function emitDirect(input: EmitInput, trace?: TraceContext) {
    const inst = await registry.activeInstallation(input.podId, input.agentName, input.instanceId);
    const event = {
      id: newId("evt"),
      agentId: inst.agentId,
      podId: input.podId,
      type: input.type,
      payload: input.payload,
      createdAt: clock.now(),
    };
    await enqueueTraceContext(trace, (ctx) =>
      store.enqueueEvents([
        { ...event, traceparent: ctx?.traceparent ?? null, tracestate: ctx?.tracestate ?? null },
      ]),
    );
    return {
      id: event.id,
      type: event.type,
      podId: event.podId,
      agentName: inst.agentName,
      instanceId: inst.instanceId,
      createdAt: iso(event.createdAt),
    };
  }

  async function deadLettersDirect(filter: {
    podId?: string;
    agentName?: string;
    instanceId?: string;
    limit?: number;
  }) {
    await store.failExhausted({ now: clock.now(), maxAttempts: config.maxAttempts });
    let agentId: string | undefined;
    if (filter.agentName !== undefined) {
      const identity = await store.findAgentIdentity(filter.agentName, filter.instanceId ?? "default");
      if (!identity) return [];
      agentId = identity.id;
    }
    const rows = await store.listDeadLetters({
      limit: filter.limit ?? 100,
      ...(agentId !== undefined ? { agentId } : {}),
      ...(filter.podId !== undefined ? { podId: filter.podId } : {}),
    });
    const who = await names(rows.map((e) => e.agentId));
    return rows.map((e) => wireQueuedEvent(e, who.get(e.agentId)));
  }

  async function requeueDirect(eventId: string) {
    const r = await store.requeueEvent({ eventId, now: clock.now() });
    if (r.status === "not_found") fail("event_not_found");
    if (r.status === "not_failed") fail("event_not_failed");
    return wireQueuedEvent(r.event);
  }

  return {
    emitDirect,
    deadLettersDirect,
    requeueDirect,

    // Operator reads without permission checks, for the CLI acting on the database and for the driver
    // suite's judge: the stored truth, not the wire view.
    /** The pod with this id, else the pods with this name. */
    async findPods(ref: string) {
      const byId = await store.getPod(ref);
      return byId ? [byId] : store.findPodsByName(ref);
    },
    /** Users not deleted, oldest first. */
    liveUsers: async () => (await store.listUsers()).filter((u) => u.deletedAt === null),
    /** Revokes a runtime token by id; false when there is no live token with it. */
    revokeTokenDirect: (tokenId: string) => store.revokeRuntimeToken(tokenId, clock.now()),
    /** One event as stored. */
    eventDirect: (eventId: string) => store.getEvent(eventId),
    /** A pod's events as stored (all agents), newest first. */
    podEventsDirect: (podId: string, limit: number) => store.listPodEvents({ podId, limit }),

    async emit(user: UserCaller, input: EmitInput, trace?: TraceContext) {
      await requirePodAdmin(store, user, input.podId);
      return emitDirect(input, trace);
    },

    async deadLetters(
      user: UserCaller,
      filter: { podId?: string; agentName?: string; instanceId?: string; limit?: number },
    ) {
      if (filter.podId === undefined) requireKernelAdmin(user);
      else await requirePodAdmin(store, user, filter.podId);
      return deadLettersDirect(filter);
    },

    async requeue(user: UserCaller, eventId: string) {
      const e = await store.getEvent(eventId);
      if (!e) fail("event_not_found");
      if (!user.isAdmin) await requirePodAdmin(store, user, e.podId);
      return requeueDirect(eventId);
    },

    async queue(user: UserCaller, podId: string, limit = 200) {
      await requirePodMember(store, user, podId);
      await store.failExhausted({ now: clock.now(), maxAttempts: config.maxAttempts });
      const rows = await store.listPodEvents({ podId, limit });
      const installations = await store.listInstallations({ podId });
      const who = await names([...rows.map((e) => e.agentId), ...installations.map((i) => i.agentId)]);
      const byAgent = new Map<string, ReturnType<typeof wireQueuedEvent>[]>();
      for (const i of installations) if (i.status === "active") byAgent.set(i.agentId, []);
      const now = clock.now();
      for (const e of rows) {
        const list = byAgent.get(e.agentId) ?? [];
        list.push(wireQueuedEvent(e, undefined, now));
        byAgent.set(e.agentId, list);
      }
      return {
        podId,
        now: iso(now),
        agents: [...byAgent.entries()].map(([agentId, events]) => ({
          agentName: who.get(agentId)?.agentName ?? "?",
          instanceId: who.get(agentId)?.instanceId ?? "?",
          events,
        })),
      };
    },
  };
}

export type OperatorService = ReturnType<typeof createOperatorService>;
