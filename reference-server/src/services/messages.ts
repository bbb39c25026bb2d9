/**
 * Messages: agents and humans post into pods (message insert, fan-out events and the Idempotency-Key
 * record in ONE transaction; a human's post also cancels the deliveries it supersedes under the
 * `interrupt` double-texting policy), and read a pod's recent messages. Check order follows CAP's precedence:
 * pod access (403), size (413), reply target (400), idempotency (422). Who may read or post in a pod is
 * decided here: an agent installed in it, a human member (or a kernel admin). An agent's posts count
 * against its token's quota (post-quota.ts), taken only for a post about to be stored (never a replay).
 * Every event of one post carries the same trace context (feature `trace-context`), passed through the
 * enqueue hook; the message keeps the context it was posted with.
 * Must never let a body name its author, or commit a message without its events.
 */

import type { components as Cap } from "@commonly/cap-spec/types/cap";
import { iso } from "../clock.js";
import { fail } from "../errors/registry.js";
import { newId, sha256Hex } from "../secrets.js";
import type {
  InstallationRecord,
  MessageAuthor,
  MessageRecord,
  NewEvent,
  StoreOps,
} from "../store/contract.js";
import { requirePodMember } from "./access.js";
import { SUPERSEDED } from "./cancellations.js";
import { canonicalJson } from "./canonical-json.js";
import type { AgentCaller, ServiceDeps, UserCaller } from "./deps.js";
import { type EventsObserver, noopObserver } from "./events-observer.js";
import { fanOut } from "./fan-out.js";
import { createPostQuota, postBytes } from "./post-quota.js";
import { enqueueTraceContext, type TraceContext } from "./trace-context.js";

/** The body of a post, as CAP specifies it (an admin human post has the same fields). */
export type PostMessageBody = Cap["schemas"]["PostMessageRequest"];

export interface PostResult {
  status: 201;
  body: { id: string; createdAt: string };
  replayed: boolean;
}

const utf8Bytes = (s: string) => Buffer.byteLength(s, "utf8");

export function createMessagesService(deps: ServiceDeps, observer: EventsObserver = noopObserver) {
  const { store, config, clock } = deps;
  const quota = createPostQuota(config.limits, clock);

  /**
   * Runs `write`, a transaction storing one post of `bytes` by `caller`; `write` calls `take()` right
   * before its insert (a transaction body may run twice, so take() counts once). What was taken is given
   * back when nothing committed, or when `stored` says the answer was a replay.
   */
  async function underQuota<T>(
    caller: AgentCaller,
    bytes: number,
    write: (take: () => void) => Promise<T>,
    stored: (result: T) => boolean = () => true,
  ): Promise<T> {
    let taken = false;
    const take = () => {
      if (taken) return;
      quota.take(caller.tokenId, bytes);
      taken = true;
    };
    let result: T;
    try {
      result = await write(take);
    } catch (err) {
      if (taken) quota.giveBack(caller.tokenId, bytes);
      throw err;
    }
    if (taken && !stored(result)) quota.giveBack(caller.tokenId, bytes);
    return result;
  }

  function checkContent(content: string) {
    if (content.trim() === "")
      fail("validation_failed", undefined, {
        errors: [{ path: "/content", in: "body", message: "must not be blank" }],
      });
    if (utf8Bytes(content) > config.maxMessageBytes)
      fail("content_too_large", undefined, { maxMessageBytes: config.maxMessageBytes });
  }

  /**
   * Double texting (feature `cancel`): a human's message cancels, with reason `superseded`, the deliveries
   * held of the pod's events by each agent it wakes whose installation says `interrupt`, in the posting
   * transaction; each new event names the ones it cancelled (`supersedes`). Agents' messages never
   * interrupt, and an agent the message does not wake keeps working.
   */
  async function interrupt(
    tx: StoreOps,
    message: MessageRecord,
    installations: InstallationRecord[],
    events: NewEvent[],
  ) {
    const interrupting = new Set(
      installations.filter((i) => i.doubleTexting === "interrupt").map((i) => i.agentId),
    );
    const woken = events.filter((e) => interrupting.has(e.agentId));
    if (woken.length === 0) return;
    const cancelled = await tx.cancelHeldEvents({
      agentIds: woken.map((e) => e.agentId),
      podId: message.podId,
      by: { kind: "kernel", id: "double-texting" },
      reason: SUPERSEDED,
      now: message.createdAt,
    });
    if (cancelled.length === 0) return;
    observer.cancelled(SUPERSEDED, cancelled.length);
    for (const e of woken) {
      const ids = cancelled.filter((c) => c.agentId === e.agentId).map((c) => c.eventId);
      if (ids.length > 0) e.supersedes = ids;
    }
  }

  /** Inserts the message and its fan-out events inside `tx`; `trace` is the context the post was made with. */
  async function insert(
    tx: StoreOps,
    podId: string,
    author: MessageAuthor,
    body: PostMessageBody,
    id?: string,
    trace?: TraceContext,
  ) {
    let replyToAgentId: string | null = null;
    if (body.replyToMessageId !== undefined) {
      const target = await tx.getMessage(body.replyToMessageId);
      if (!target || target.podId !== podId) fail("message_not_in_pod");
      if (target.author.kind === "agent") replyToAgentId = target.author.id;
    }
    const message: MessageRecord = {
      id: id ?? newId("msg"),
      podId,
      content: body.content,
      author,
      replyToMessageId: body.replyToMessageId ?? null,
      metadata: body.metadata ?? null,
      createdAt: clock.now(),
      traceparent: trace?.traceparent ?? null,
      tracestate: trace?.tracestate ?? null,
    };
    await tx.insertMessage(message);
    const installations = await tx.listInstallations({ podId, activeOnly: true });
    const events = fanOut({ message, installations, replyToAgentId, newEventId: () => newId("evt") });
    if (author.kind === "human") await interrupt(tx, message, installations, events);
    await enqueueTraced(tx, events, trace);
    return message;
  }

  /** Enqueues `events` of one cause, all with the context the enqueue hook gives for `trace`. */
  function enqueueTraced(tx: StoreOps, events: NewEvent[], trace: TraceContext | undefined) {
    if (events.length === 0) return tx.enqueueEvents(events);
    return enqueueTraceContext(trace, (ctx) => {
      for (const e of events) {
        e.traceparent = ctx?.traceparent ?? null;
        e.tracestate = ctx?.tracestate ?? null;
      }
      return tx.enqueueEvents(events);
    });
  }

  async function requireInstalled(tx: StoreOps, agentId: string, podId: string) {
    if (!(await tx.findActiveInstallation(agentId, podId))) fail("not_installed");
  }

  return {
    insert,
    checkContent,
    requireInstalled,
    underQuota,

    async postAsAgent(
      caller: AgentCaller,
      podId: string,
      body: PostMessageBody,
      rawBody: unknown,
      idempotencyKey?: string,
      trace?: TraceContext,
    ): Promise<PostResult> {
      await requireInstalled(store, caller.agentId, podId);
      checkContent(body.content);
      const author: MessageAuthor = { kind: "agent", id: caller.agentId, name: caller.agentName };
      const write = (take: () => void) =>
        store.transaction(async (tx): Promise<PostResult> => {
          await requireInstalled(tx, caller.agentId, podId);
          const now = clock.now();
          // Only a keyed post is compared with an earlier one; most posts carry no key.
          const requestHash =
            idempotencyKey === undefined ? "" : sha256Hex(canonicalJson({ podId, body: rawBody }));
          if (idempotencyKey !== undefined) {
            const prior = await tx.getIdempotencyRecord(caller.agentId, idempotencyKey);
            if (prior && prior.createdAt > now - config.idempotencyTtlMs) {
              if (prior.requestHash !== requestHash) fail("idempotency_key_reused");
              return { status: 201, body: prior.body as PostResult["body"], replayed: true };
            }
          }
          take();
          const message = await insert(tx, podId, author, body, undefined, trace);
          const response = { id: message.id, createdAt: iso(message.createdAt) };
          if (idempotencyKey !== undefined)
            await tx.putIdempotencyRecord({
              agentId: caller.agentId,
              key: idempotencyKey,
              requestHash,
              podId,
              status: 201,
              body: response,
              createdAt: now,
            });
          return { status: 201, body: response, replayed: false };
        });
      return underQuota(caller, postBytes(body), write, (r) => !r.replayed);
    },

    async postAsHuman(user: UserCaller, podId: string, body: PostMessageBody, trace?: TraceContext) {
      await requirePodMember(store, user, podId);
      checkContent(body.content);
      const author: MessageAuthor = { kind: "human", id: user.userId, name: user.name };
      const message = await store.transaction((tx) => insert(tx, podId, author, body, undefined, trace));
      return { id: message.id, createdAt: iso(message.createdAt) };
    },

    /**
     * The pod's messages as `viewer` may read them (an installed agent: 403 not_installed otherwise; a
     * member human or kernel admin: 404 pod_not_found otherwise), newest first; `before` must name a
     * message of this pod (CAP-READ-3); `self` is relative to the viewer.
     */
    async list(
      viewer: AgentCaller | UserCaller,
      podId: string,
      { limit, before }: { limit: number; before?: string | undefined },
    ) {
      if (viewer.kind === "agent") await requireInstalled(store, viewer.agentId, podId);
      else await requirePodMember(store, viewer, podId);
      const self =
        viewer.kind === "agent"
          ? { kind: "agent", id: viewer.agentId }
          : { kind: "human", id: viewer.userId };
      if (before !== undefined) {
        const anchor = await store.getMessage(before);
        if (!anchor || anchor.podId !== podId) fail("message_not_in_pod");
      }
      const rows = await store.listMessages({ podId, limit, ...(before !== undefined ? { before } : {}) });
      return rows.map((m) => wireMessage(m, self));
    },
  };
}

export function wireMessage(m: MessageRecord, viewer: { kind: string; id: string }) {
  return {
    id: m.id,
    podId: m.podId,
    content: m.content,
    author: { id: m.author.id, kind: m.author.kind, name: m.author.name },
    ...(m.replyToMessageId !== null ? { replyToMessageId: m.replyToMessageId } : {}),
    ...(m.metadata !== null ? { metadata: m.metadata } : {}),
    createdAt: iso(m.createdAt),
    self: m.author.kind === viewer.kind && m.author.id === viewer.id,
    isBot: m.author.kind === "agent",
  };
}

export type MessagesService = ReturnType<typeof createMessagesService>;
