/**
 * An in-memory stand-in for the `CapClient` methods `runDriver` calls, with the reference kernel's
 * lease semantics on virtual time. For driver unit tests only: the integration tests run the same
 * behaviours against the real `cap-kernel` over sockets.
 */
import type { CapClient } from "../../src/client.js";
import { CapHttpError, CapSdkError } from "../../src/errors.js";
import type { AckResult, Event, Info, TraceContext } from "../../src/types.js";
import type { VirtualTime } from "./virtual-time.js";

interface Row {
  event: Event;
  state: "ready" | "leased" | "acked" | "failed" | "cancelled";
  leaseUntil: number;
  /** Not ready before this (a release delay). */
  availableAt: number;
  /** The pollId of the poll that made the current delivery. */
  pollId?: string | undefined;
  /** Feature `cancel`: why, when, and which delivery was held (null: none). */
  cancel?: { reason: string; at: number; attempts: number | null };
}

export function httpError(
  status: number,
  code: string,
  operation = "TEST",
  details?: Record<string, unknown>,
): CapHttpError {
  return new CapHttpError({ status, code, message: code, operation, details });
}

export class FakeKernel {
  readonly fingerprint = "00c0ffee";
  leaseSeconds = 30;
  maxAttempts = 5;
  features = [
    "long-poll",
    "renew",
    "decisions",
    "message-read",
    "idempotency-key",
    "release",
    "batch-ack",
    "poll-replay",
  ];
  /** `absent`: /info answers 404 like the production kernel. */
  infoMode: "ok" | "absent" = "ok";
  /** Virtual ms a batch ack takes (a round trip), so acks can pile up behind one in flight. */
  ackLatencyMs = 0;
  /** Answer polls at once, like the production kernel that ignores `waitSeconds`. */
  ignoreWait = false;
  readonly rows: Row[] = [];
  readonly acks: Array<{ id: string; result: AckResult | undefined }> = [];
  readonly renews: Array<{ id: string; attempts: number; at: number }> = [];
  readonly posts: Array<{ podId: string; content: string; replyToMessageId?: string; key?: string }> = [];
  readonly polls: Array<{ limit?: number; waitSeconds?: number; pollId?: string; at: number }> = [];
  /**
   * The trace context (feature `trace-context`) of each request on behalf of events: its operation
   * (`ack`, `ackMany`, `renew`, `release`, `watch`, `post`), the event id (the pod id for a post) and what
   * its options carried.
   */
  readonly traced: Array<{ op: string; id: string; traceContext: TraceContext | undefined }> = [];
  /** Every batch ack request: the ids it carried. */
  readonly batches: string[][] = [];
  readonly releases: Array<{
    id: string;
    attempts: number;
    delaySeconds: number;
    reason?: string;
    at: number;
  }> = [];
  /** Errors thrown by the next polls, in order. */
  readonly pollErrors: unknown[] = [];
  /** Errors thrown by the next renews, in order. */
  readonly renewErrors: unknown[] = [];
  /**
   * Every cancellation watch: when it was sent, how it ended (`cancelled`, `quiet`, `aborted`, an error
   * code) and when.
   */
  readonly watches: Array<{
    id: string;
    attempts: number;
    waitSeconds: number;
    at: number;
    end?: string;
    endedAt?: number;
  }> = [];
  /** Errors thrown by the next watches, in order. */
  readonly watchErrors: unknown[] = [];
  /** Answer watches at once with `cancelRequested: false`, like a kernel that ignores `waitSeconds`. */
  ignoreWatchWait = false;
  /**
   * A watch ends at the latest when a third of the lease is left, and renews the lease as it ends without
   * a cancel (the reference kernel). False: it waits `waitSeconds` and renews nothing, as kernels did
   * before.
   */
  watchRenews = true;
  #cancelWake = new AbortController();
  #seq = 0;
  #wake = new AbortController();

  constructor(private readonly time: VirtualTime) {}

  get client(): CapClient {
    return this as unknown as CapClient;
  }

  enqueue(
    type: string,
    payload: Record<string, unknown> = {},
    opts: { id?: string; podId?: string; traceContext?: TraceContext } = {},
  ): string {
    const id = opts.id ?? `evt_${++this.#seq}`;
    this.rows.push({
      event: {
        id,
        type,
        podId: opts.podId ?? "pod_1",
        payload,
        attempts: 0,
        createdAt: new Date(this.time.now).toISOString(),
        ...(opts.traceContext ? { traceContext: opts.traceContext } : {}),
      },
      state: "ready",
      leaseUntil: 0,
      availableAt: 0,
    });
    this.#wake.abort();
    this.#wake = new AbortController();
    return id;
  }

  /** Cancel an event as a human or operator would (feature `cancel`). */
  cancel(id: string, reason = "requested"): void {
    const row = this.rows.find((r) => r.event.id === id);
    if (!row || row.state === "acked" || row.state === "failed" || row.state === "cancelled") return;
    row.cancel = { reason, at: this.time.now, attempts: this.#held(row) ? row.event.attempts : null };
    row.state = "cancelled";
    this.#cancelWake.abort();
    this.#cancelWake = new AbortController();
  }

  /** The open watches (sent and not yet answered). */
  get openWatches(): number {
    return this.watches.filter((w) => w.end === undefined).length;
  }

  acked(id: string): boolean {
    return this.rows.some((r) => r.event.id === id && r.state === "acked");
  }

  async info(): Promise<Info> {
    await Promise.resolve();
    if (this.infoMode === "absent") throw httpError(404, "route_not_found", "GET /info");
    return {
      protocol: "cap",
      version: "1",
      leaseSeconds: this.leaseSeconds,
      maxAttempts: this.maxAttempts,
      maxLimit: 50,
      maxWaitSeconds: 25,
      maxMessageBytes: 65536,
      features: this.features,
    };
  }

  #ready(): Row[] {
    const now = this.time.now;
    for (const row of this.rows) {
      if (row.state === "leased" && row.leaseUntil <= now && row.event.attempts >= this.maxAttempts)
        row.state = "failed";
    }
    return this.rows.filter(
      (r) => (r.state === "ready" && r.availableAt <= now) || (r.state === "leased" && r.leaseUntil <= now),
    );
  }

  #held(row: Row): boolean {
    return row.state === "leased" && row.leaseUntil > this.time.now;
  }

  async poll(
    query: { limit?: number; waitSeconds?: number; pollId?: string } = {},
    options: { signal?: AbortSignal } = {},
  ): Promise<{ events: Event[] }> {
    this.polls.push({ ...query, at: this.time.now });
    await Promise.resolve();
    const failure = this.pollErrors.shift();
    if (failure !== undefined) throw failure;
    if (query.pollId && this.features.includes("poll-replay")) {
      const replay = this.rows.filter((r) => r.pollId === query.pollId && this.#held(r));
      if (replay.length > 0) return { events: replay.map((r) => structuredClone(r.event)) };
    }
    const deadline = this.time.now + (this.ignoreWait ? 0 : (query.waitSeconds ?? 0) * 1000);
    while (this.#ready().length === 0 && this.time.now < deadline) {
      const wake = new AbortController();
      const onAbort = () => wake.abort();
      const enqueued = this.#wake.signal;
      options.signal?.addEventListener("abort", onAbort, { once: true });
      enqueued.addEventListener("abort", onAbort, { once: true });
      await this.time.sleep(deadline - this.time.now, wake.signal);
      options.signal?.removeEventListener("abort", onAbort);
      enqueued.removeEventListener("abort", onAbort);
      if (options.signal?.aborted) throw new CapSdkError("aborted", "GET /events aborted");
    }
    const claimed = this.#ready().slice(0, query.limit ?? 20);
    for (const row of claimed) {
      row.state = "leased";
      row.pollId = query.pollId;
      row.leaseUntil = this.time.now + this.leaseSeconds * 1000;
      row.event = {
        ...row.event,
        attempts: row.event.attempts + 1,
        leaseExpiresAt: new Date(row.leaseUntil).toISOString(),
      };
    }
    return { events: claimed.map((r) => structuredClone(r.event)) };
  }

  /** A renew or release of the cancelled delivery: 409 with `details.cancelled` (CAP-CANCEL-7). */
  #cancelledConflict(row: Row, operation: string): CapHttpError | undefined {
    if (row.state !== "cancelled") return undefined;
    return httpError(409, "lease_lost", operation, { cancelled: true, reason: row.cancel!.reason });
  }

  async watchCancellation(
    id: string,
    query: { attempts: number; waitSeconds?: number },
    options: { signal?: AbortSignal; traceContext?: TraceContext } = {},
  ): Promise<
    | { cancelRequested: true; reason: string; requestedAt: string }
    | { cancelRequested: false; leaseExpiresAt: string }
  > {
    this.traced.push({ op: "watch", id, traceContext: options.traceContext });
    const waitSeconds = query.waitSeconds ?? 0;
    const watch: (typeof this.watches)[number] = {
      id,
      attempts: query.attempts,
      waitSeconds,
      at: this.time.now,
    };
    this.watches.push(watch);
    try {
      return await this.#watch(watch, query.attempts, waitSeconds, options.signal);
    } finally {
      watch.endedAt = this.time.now;
    }
  }

  async #watch(
    watch: FakeKernel["watches"][number],
    attempts: number,
    waitSeconds: number,
    signal: AbortSignal | undefined,
  ): Promise<
    | { cancelRequested: true; reason: string; requestedAt: string }
    | { cancelRequested: false; leaseExpiresAt: string }
  > {
    const { id } = watch;
    await Promise.resolve();
    const failure = this.watchErrors.shift();
    if (failure !== undefined) {
      watch.end = (failure as { code?: string }).code ?? "error";
      throw failure;
    }
    const row = this.rows.find((r) => r.event.id === id);
    if (!row) {
      watch.end = "event_not_found";
      throw httpError(404, "event_not_found", "GET /events/{id}/cancellation");
    }
    const waitEnds = this.time.now + (this.ignoreWatchWait ? 0 : waitSeconds * 1000);
    const third = (this.leaseSeconds * 1000) / 3;
    for (;;) {
      const deadline = this.watchRenews ? Math.min(waitEnds, row.leaseUntil - third) : waitEnds;
      if (row.state === "cancelled" && row.cancel!.attempts === attempts) {
        watch.end = "cancelled";
        const requestedAt = new Date(row.cancel!.at).toISOString();
        return { cancelRequested: true, reason: row.cancel!.reason, requestedAt };
      }
      if (!this.#held(row) || row.event.attempts !== attempts) {
        watch.end = "lease_lost";
        throw httpError(409, "lease_lost", "GET /events/{id}/cancellation");
      }
      if (this.time.now >= deadline) {
        watch.end = "quiet";
        // Renewed as `POST /renew` would: the checks above are the renew's.
        if (this.watchRenews) row.leaseUntil = this.time.now + this.leaseSeconds * 1000;
        return { cancelRequested: false, leaseExpiresAt: new Date(row.leaseUntil).toISOString() };
      }
      const wake = new AbortController();
      const onAbort = () => wake.abort();
      const cancelled = this.#cancelWake.signal;
      signal?.addEventListener("abort", onAbort, { once: true });
      cancelled.addEventListener("abort", onAbort, { once: true });
      await this.time.sleep(Math.max(0, deadline - this.time.now), wake.signal);
      signal?.removeEventListener("abort", onAbort);
      cancelled.removeEventListener("abort", onAbort);
      if (signal?.aborted) {
        watch.end = "aborted";
        throw new CapSdkError("aborted", "GET /events/{id}/cancellation aborted");
      }
    }
  }

  async ack(
    id: string,
    result?: AckResult,
    options: { traceContext?: TraceContext } = {},
  ): Promise<{ ok: true }> {
    this.traced.push({ op: "ack", id, traceContext: options.traceContext });
    await Promise.resolve();
    const row = this.rows.find((r) => r.event.id === id);
    if (!row) throw httpError(404, "event_not_found", "POST /events/{id}/ack");
    if (row.state !== "cancelled") row.state = "acked";
    this.acks.push({ id, result });
    return { ok: true };
  }

  async ackMany(
    acks: Array<{ id: string; result?: AckResult }>,
    options: { traceContext?: TraceContext } = {},
  ): Promise<{ results: Array<{ id: string; ok: true } | { id: string; ok: false; code: string }> }> {
    this.traced.push({
      op: "ackMany",
      id: acks.map((a) => a.id).join(","),
      traceContext: options.traceContext,
    });
    await Promise.resolve();
    if (!this.features.includes("batch-ack"))
      throw new Error("the driver used batch ack without the feature");
    this.batches.push(acks.map((a) => a.id));
    if (this.ackLatencyMs > 0) await this.time.sleep(this.ackLatencyMs);
    return {
      results: acks.map(({ id, result }) => {
        const row = this.rows.find((r) => r.event.id === id);
        if (!row) return { id, ok: false as const, code: "event_not_found" };
        if (row.state !== "cancelled") row.state = "acked";
        this.acks.push({ id, result });
        return { id, ok: true as const };
      }),
    };
  }

  async release(
    id: string,
    body: { attempts: number; delaySeconds?: number; reason?: string },
    options: { traceContext?: TraceContext } = {},
  ): Promise<{ ok: true; status: "pending" | "failed"; availableAt?: string }> {
    this.traced.push({ op: "release", id, traceContext: options.traceContext });
    await Promise.resolve();
    if (!this.features.includes("release")) throw new Error("the driver released without the feature");
    const delaySeconds = body.delaySeconds ?? 0;
    this.releases.push({ id, attempts: body.attempts, delaySeconds, reason: body.reason, at: this.time.now });
    const row = this.rows.find((r) => r.event.id === id);
    if (!row) throw httpError(404, "event_not_found", "POST /events/{id}/release");
    const cancelled = this.#cancelledConflict(row, "POST /events/{id}/release");
    if (cancelled) throw cancelled;
    if (!this.#held(row) || row.event.attempts !== body.attempts)
      throw httpError(409, "lease_lost", "POST /events/{id}/release");
    if (row.event.attempts >= this.maxAttempts) {
      row.state = "failed";
      return { ok: true, status: "failed" };
    }
    row.state = "ready";
    row.pollId = undefined;
    row.availableAt = this.time.now + delaySeconds * 1000;
    this.#wake.abort();
    this.#wake = new AbortController();
    return { ok: true, status: "pending", availableAt: new Date(row.availableAt).toISOString() };
  }

  async renew(
    id: string,
    attempts: number,
    options: { traceContext?: TraceContext } = {},
  ): Promise<{ ok: true; leaseExpiresAt: string }> {
    this.traced.push({ op: "renew", id, traceContext: options.traceContext });
    this.renews.push({ id, attempts, at: this.time.now });
    await Promise.resolve();
    const failure = this.renewErrors.shift();
    if (failure !== undefined) throw failure;
    const row = this.rows.find((r) => r.event.id === id);
    if (!row) throw httpError(404, "event_not_found", "POST /events/{id}/renew");
    const cancelled = this.#cancelledConflict(row, "POST /events/{id}/renew");
    if (cancelled) throw cancelled;
    if (row.state !== "leased" || row.event.attempts !== attempts || row.leaseUntil <= this.time.now)
      throw httpError(409, "lease_lost", "POST /events/{id}/renew");
    row.leaseUntil = this.time.now + this.leaseSeconds * 1000;
    return { ok: true, leaseExpiresAt: new Date(row.leaseUntil).toISOString() };
  }

  async postMessage(
    podId: string,
    body: { content: string; replyToMessageId?: string },
    options: { idempotencyKey?: string; traceContext?: TraceContext } = {},
  ): Promise<{ id: string; createdAt: string; replayed: boolean }> {
    this.traced.push({ op: "post", id: podId, traceContext: options.traceContext });
    await Promise.resolve();
    const previous = this.posts.findIndex((p) => p.key !== undefined && p.key === options.idempotencyKey);
    if (previous >= 0) return { id: `msg_${previous + 1}`, createdAt: "", replayed: true };
    this.posts.push({ podId, ...body, ...(options.idempotencyKey ? { key: options.idempotencyKey } : {}) });
    return {
      id: `msg_${this.posts.length}`,
      createdAt: new Date(this.time.now).toISOString(),
      replayed: false,
    };
  }
}
