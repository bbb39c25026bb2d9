/**
 * `CapClient`: one typed method per CAP route, on openapi-fetch and the generated types. Strict
 * writer (request bodies are the spec's types), lenient reader (production-kernel answers are
 * normalised, see internal/client/lenient.ts), optional `validate` mode that checks every answer against
 * the generated JSON Schema validators. It never logs and never holds state between calls.
 */
import createClient, { type Client } from "openapi-fetch";
import { CapHttpError, CapSdkError } from "./errors.js";
import type { paths } from "./generated/cap-v1.js";
import { CAP_BASE_PATH as BASE } from "./generated/constants.js";
import { MAX_BATCH_ACK, newPollId, noSuchRoute, randomKey } from "./internal/client/ids.js";
import * as read from "./internal/client/lenient.js";
import { fnv1a, realSleep, type Sleep } from "./internal/client/time.js";
import { validTraceContext } from "./internal/client/trace-headers.js";
import { type Answer, type Call, execute, type RetryPolicy } from "./internal/client/transport.js";
import type {
  AckResponse,
  AckResult,
  BatchAckItem,
  BatchAckResponse,
  Cancellation,
  CancelRequest,
  CancelResponse,
  DecisionRequest,
  DecisionResponse,
  EventList,
  Info,
  MemoryEnvelope,
  PodMessageList,
  PostMessageRequest,
  PostMessageResponse,
  PutMemoryRequest,
  PutMemoryResponse,
  ReleaseRequest,
  ReleaseResponse,
  RenewResponse,
  SyncMemoryRequest,
  SyncMemoryResponse,
  TraceContext,
} from "./types.js";
import type { SchemaName, ValidationResult } from "./validators.js";
import { SDK_VERSION } from "./version.js";

/** Checks one answer against the CAP model `name`; `@commonly/cap-sdk/validators`' `validate` is one. */
export type ResponseValidator = (name: SchemaName, data: unknown) => ValidationResult;

export interface CapClientOptions {
  /** The kernel's origin, e.g. `http://127.0.0.1:7070`. A trailing `/api/agents/runtime` is tolerated. */
  baseUrl: string;
  /** The agent's runtime token (`cm_agent_…`), sent as `Authorization: Bearer`. */
  token: string;
  /** Per-request timeout in ms (default 30 000). A poll adds its `waitSeconds` to it. */
  timeoutMs?: number;
  /** Retries of idempotent calls; `false` disables them. Defaults: 2 retries, 500 ms doubling, 30 s cap. */
  retry?: Partial<RetryPolicy> | false;
  /**
   * Check every answer against the generated validators and fail with `invalid_response` naming the
   * field that is wrong. `true` loads `@commonly/cap-sdk/validators` on first use; or pass a validator.
   */
  validate?: boolean | ResponseValidator;
  /** A `fetch` to use instead of `globalThis.fetch`. */
  fetch?: (request: Request) => Promise<Response>;
  /** Appended to `User-Agent: cap-sdk/<version>`, e.g. `my-driver/1.2`. */
  userAgent?: string;
  /** Waits between retries (injectable for tests). */
  sleep?: Sleep;
  /** Source of jitter in [0, 1) (injectable for tests). */
  random?: () => number;
}

/** Per-call options. */
export interface RequestOptions {
  /** Aborts the call; it then rejects with `CapSdkError` `aborted`. */
  signal?: AbortSignal;
  /** Overrides the client's `timeoutMs` for this call. */
  timeoutMs?: number;
  /** Overrides the client's retry count for this call (idempotent calls only). */
  retries?: number;
  /**
   * Sent as the W3C `traceparent` and `tracestate` headers (CAP feature `trace-context`): the context of
   * the event this call is made on behalf of, or of your own span. Left out when `traceparent` is not
   * valid. `runDriver` sets it on every call it makes for an event; `ctx.client` on every call of yours.
   */
  traceContext?: TraceContext;
}

/** Options of `postMessage`. */
export interface PostMessageOptions extends RequestOptions {
  /** 1–255 printable ASCII characters; default a random UUID per call, so the call's own retries are safe. */
  idempotencyKey?: string;
}

/** A posted message; `replayed` when the kernel answered an earlier request with the same key. */
export interface PostMessageResult extends PostMessageResponse {
  replayed: boolean;
}

/**
 * A view of `client` (same options, same validator) whose every call sends the trace context `traceOf`
 * gives at that moment, unless the call passes its own: a handler's `ctx.client`. Not public API (not
 * exported from index.ts).
 */
export let tracedClient: (client: CapClient, traceOf: () => TraceContext | undefined) => CapClient;

/** A typed client for one agent's CAP routes on one kernel. */
export class CapClient {
  /** The kernel origin requests go to. */
  readonly baseUrl: string;
  /**
   * The underlying openapi-fetch client, typed by the generated `paths`, with the same auth and
   * `User-Agent`: an escape hatch without retries, timeouts or lenient reading.
   */
  readonly raw: Client<paths>;
  /** A short, non-reversible fingerprint of the token (FNV-1a, 32 bits): safe to log, stable per agent. */
  readonly fingerprint: string;
  readonly #timeoutMs: number;
  readonly #retry: RetryPolicy;
  readonly #sleep: Sleep;
  readonly #random: () => number;
  readonly #validateOption: boolean | ResponseValidator;
  #validator: ResponseValidator | undefined;
  readonly #options: CapClientOptions;
  #traceOf: (() => TraceContext | undefined) | undefined;

  static {
    tracedClient = (client, traceOf) => {
      // A stand-in for the client (a test's fake) has nothing to copy: it is used as it is.
      if (!(#options in client)) return client;
      const view = new CapClient(client.#options);
      view.#traceOf = traceOf;
      view.#validator = client.#validator;
      return view;
    };
  }

  constructor(options: CapClientOptions) {
    if (!options.baseUrl) throw new TypeError("CapClient: baseUrl is required");
    if (!options.token) throw new TypeError("CapClient: token is required");
    this.#options = options;
    const trimmed = options.baseUrl.replace(/\/+$/, "");
    this.baseUrl = trimmed.endsWith(BASE) ? trimmed.slice(0, -BASE.length) : trimmed;
    const userAgent = `cap-sdk/${SDK_VERSION}${options.userAgent ? ` ${options.userAgent}` : ""}`;
    this.raw = createClient<paths>({
      baseUrl: this.baseUrl,
      headers: {
        Authorization: `Bearer ${options.token}`,
        "User-Agent": userAgent,
        Accept: "application/json",
      },
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
    this.fingerprint = fnv1a(options.token).toString(16).padStart(8, "0");
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    const retry = options.retry === false ? { retries: 0 } : (options.retry ?? {});
    this.#retry = { retries: 2, baseDelayMs: 500, maxDelayMs: 30_000, ...retry };
    this.#sleep = options.sleep ?? realSleep;
    this.#random = options.random ?? Math.random;
    this.#validateOption = options.validate ?? false;
    if (typeof this.#validateOption === "function") this.#validator = this.#validateOption;
  }

  /**
   * `GET /events`: claim up to `limit` ready events; with `waitSeconds`, long-poll for one. Every poll
   * carries a `pollId` (a fresh one unless you pass yours), and the client's own retries of the poll
   * send the same one: on a kernel with `poll-replay` a retry after a lost answer gets the same
   * deliveries back instead of leaving them stranded under a lease. Kernels without it ignore the
   * parameter; there a lost answer still costs its events one attempt and one lease (they come back),
   * and the retry claims only events that were ready anyway, so retrying is never worse than not.
   */
  async poll(
    query: { limit?: number; waitSeconds?: number; pollId?: string } = {},
    options: RequestOptions = {},
  ): Promise<EventList> {
    const op = "GET /events";
    const params = { query: { ...query, pollId: query.pollId ?? newPollId() } };
    const { data } = await this.#call(
      op,
      true,
      options,
      (signal, headers) => this.raw.GET(`${BASE}/events`, { params, signal, headers }),
      (query.waitSeconds ?? 0) * 1000,
    );
    await this.#check(op, "EventList", data);
    return read.readEventList(op, data);
  }

  /** `POST /events/{id}/ack`: mark an event handled, optionally saying how. Idempotent. */
  async ack(id: string, result?: AckResult, options: RequestOptions = {}): Promise<AckResponse> {
    const op = "POST /events/{id}/ack";
    const { data } = await this.#call(op, true, options, (signal, headers) =>
      this.raw.POST(`${BASE}/events/{id}/ack`, {
        params: { path: { id } },
        body: result ? { result } : {},
        signal,
        headers,
      }),
    );
    await this.#check(op, "AckResponse", data);
    return read.readAck(op, data);
  }

  /**
   * `POST /events/ack` (feature `batch-ack`): ack several events, each settled as `ack` settles it;
   * one result per item, in order (`{id, ok: true}` or `{id, ok: false, code}`). More than 100 items
   * go in several requests. On a kernel without the route (404 other than `event_not_found`, 405,
   * 501) it falls back to one `ack` per item, with the same results. Acks are idempotent, so after a
   * rejection (`CapSdkError` or `CapHttpError`) the whole call can simply be repeated.
   */
  async ackMany(acks: BatchAckItem[], options: RequestOptions = {}): Promise<BatchAckResponse> {
    const results: BatchAckResponse["results"] = [];
    for (let i = 0; i < acks.length; i += MAX_BATCH_ACK) {
      const chunk = acks.slice(i, i + MAX_BATCH_ACK);
      try {
        results.push(...(await this.#ackBatch(chunk, options)));
      } catch (error) {
        if (!noSuchRoute(error)) throw error;
        results.push(...(await this.#ackEach(acks.slice(i), options)));
        break;
      }
    }
    return { results };
  }

  async #ackBatch(acks: BatchAckItem[], options: RequestOptions): Promise<BatchAckResponse["results"]> {
    const op = "POST /events/ack";
    const { data } = await this.#call(op, true, options, (signal, headers) =>
      this.raw.POST(`${BASE}/events/ack`, { body: { acks }, signal, headers }),
    );
    await this.#check(op, "BatchAckResponse", data);
    return read.readBatchAck(
      op,
      data,
      acks.map((a) => a.id),
    );
  }

  async #ackEach(acks: BatchAckItem[], options: RequestOptions): Promise<BatchAckResponse["results"]> {
    const results: BatchAckResponse["results"] = [];
    for (const { id, result } of acks) {
      try {
        await this.ack(id, result, options);
        results.push({ id, ok: true });
      } catch (error) {
        if (!(error instanceof CapHttpError)) throw error;
        results.push({ id, ok: false, code: error.code });
      }
    }
    return results;
  }

  /**
   * `POST /events/{id}/release` (feature `release`): give back the delivery `attempts` of an event you
   * hold; it is ready again `delaySeconds` (0–900) from now, or `failed` when that delivery used the
   * last attempt. 409 `lease_lost` when that delivery no longer holds the lease — also the answer to a
   * retry whose first attempt took effect, so after a 409 the event is not yours either way.
   */
  async release(
    id: string,
    body: Omit<ReleaseRequest, "delaySeconds"> & { delaySeconds?: number },
    options: RequestOptions = {},
  ): Promise<ReleaseResponse> {
    const op = "POST /events/{id}/release";
    const request = { ...body, delaySeconds: body.delaySeconds ?? 0 };
    const { data } = await this.#call(op, true, options, (signal, headers) =>
      this.raw.POST(`${BASE}/events/{id}/release`, {
        params: { path: { id } },
        body: request,
        signal,
        headers,
      }),
    );
    await this.#check(op, "ReleaseResponse", data);
    return read.readRelease(op, data);
  }

  /** `POST /events/{id}/renew`: extend the lease of the delivery `attempts`; 409 `lease_lost` when gone. */
  async renew(id: string, attempts: number, options: RequestOptions = {}): Promise<RenewResponse> {
    const op = "POST /events/{id}/renew";
    const { data } = await this.#call(op, true, options, (signal, headers) =>
      this.raw.POST(`${BASE}/events/{id}/renew`, {
        params: { path: { id } },
        body: { attempts },
        signal,
        headers,
      }),
    );
    await this.#check(op, "RenewResponse", data);
    return read.readRenew(op, data);
  }

  /**
   * `POST /events/{id}/cancel` (feature `cancel`): cancel one of this agent's own events, with an
   * optional `reason` (at most 500 characters). A pending event or a held delivery becomes terminal
   * `cancelled` (never delivered again, not a failure); a settled one is left as it is. The answer says
   * which: `status` is the state after the call, `changed` is true exactly when this call cancelled it.
   * 404 `event_not_found` for an unknown or another identity's event. Idempotent, so retried.
   */
  async cancelEvent(
    id: string,
    body: CancelRequest = {},
    options: RequestOptions = {},
  ): Promise<CancelResponse> {
    const op = "POST /events/{id}/cancel";
    const { data } = await this.#call(op, true, options, (signal, headers) =>
      this.raw.POST(`${BASE}/events/{id}/cancel`, { params: { path: { id } }, body, signal, headers }),
    );
    await this.#check(op, "CancelResponse", data);
    return read.readCancel(op, data);
  }

  /**
   * `GET /events/{id}/cancellation` (feature `cancel`): a long-poll on the delivery `attempts` of an
   * event this agent holds. Answers `{cancelRequested: true, reason, requestedAt}` as soon as that
   * delivery is cancelled (at once when it already was), else `{cancelRequested: false,
   * leaseExpiresAt}` after `waitSeconds` (0–25, default 0). Claims and changes nothing. 409
   * `lease_lost` when that delivery is no longer held (released, acked, lease ended); 404
   * `event_not_found` for an unknown or another identity's event; 429 `too_many_long_polls` beyond the
   * kernel's watches per token. `runDriver` runs one for each running handler; call it yourself only
   * outside it.
   */
  async watchCancellation(
    id: string,
    query: { attempts: number; waitSeconds?: number },
    options: RequestOptions = {},
  ): Promise<Cancellation> {
    const op = "GET /events/{id}/cancellation";
    const { data } = await this.#call(
      op,
      true,
      options,
      (signal, headers) =>
        this.raw.GET(`${BASE}/events/{id}/cancellation`, {
          params: { path: { id }, query },
          signal,
          headers,
        }),
      (query.waitSeconds ?? 0) * 1000,
    );
    await this.#check(op, "Cancellation", data);
    return read.readCancellation(op, data);
  }

  /** `POST /pods/{podId}/messages`, with an `Idempotency-Key` so retries never post twice. */
  async postMessage(
    podId: string,
    message: PostMessageRequest,
    options: PostMessageOptions = {},
  ): Promise<PostMessageResult> {
    const op = "POST /pods/{podId}/messages";
    const idempotencyKey = options.idempotencyKey ?? randomKey();
    const { data, response } = await this.#call(op, true, options, (signal, headers) =>
      this.raw.POST(`${BASE}/pods/{podId}/messages`, {
        params: { path: { podId }, header: { "Idempotency-Key": idempotencyKey } },
        body: message,
        signal,
        headers,
      }),
    );
    await this.#check(op, "PostMessageResponse", data, response, 201);
    return { ...read.readPosted(op, data), replayed: response.headers.get("idempotent-replayed") === "true" };
  }

  /** `GET /pods/{podId}/messages`: recent messages, newest first, each flagged `self`. */
  async listMessages(
    podId: string,
    query: { limit?: number; before?: string } = {},
    options: RequestOptions = {},
  ): Promise<PodMessageList> {
    const op = "GET /pods/{podId}/messages";
    const { data } = await this.#call(op, true, options, (signal, headers) =>
      this.raw.GET(`${BASE}/pods/{podId}/messages`, { params: { path: { podId }, query }, signal, headers }),
    );
    await this.#check(op, "PodMessageList", data);
    return read.readMessages(op, data);
  }

  /** `GET /memory`: the agent's memory envelope (empty for a fresh agent). */
  async getMemory(options: RequestOptions = {}): Promise<MemoryEnvelope> {
    const op = "GET /memory";
    const { data } = await this.#call(op, true, options, (signal, headers) =>
      this.raw.GET(`${BASE}/memory`, { signal, headers }),
    );
    await this.#check(op, "MemoryEnvelope", data);
    return read.readMemory(op, data);
  }

  /** `PUT /memory`: merge single sections, replace arrays. */
  async putMemory(body: PutMemoryRequest, options: RequestOptions = {}): Promise<PutMemoryResponse> {
    const op = "PUT /memory";
    const { data } = await this.#call(op, true, options, (signal, headers) =>
      this.raw.PUT(`${BASE}/memory`, { body, signal, headers }),
    );
    await this.#check(op, "PutMemoryResponse", data);
    return read.readWrite(data);
  }

  /** `POST /memory/sync`: promote sections (`full` or `patch`); deduped within a UTC day. */
  async syncMemory(body: SyncMemoryRequest, options: RequestOptions = {}): Promise<SyncMemoryResponse> {
    const op = "POST /memory/sync";
    const { data } = await this.#call(op, true, options, (signal, headers) =>
      this.raw.POST(`${BASE}/memory/sync`, { body, signal, headers }),
    );
    await this.#check(op, "SyncMemoryResponse", data);
    return read.readWrite(data);
  }

  /** `GET /info`: protocol version, timing and features. Optional route: 404 on kernels without it. */
  async info(options: RequestOptions = {}): Promise<Info> {
    const op = "GET /info";
    const { data } = await this.#call(op, true, options, (signal, headers) =>
      this.raw.GET(`${BASE}/info`, { signal, headers }),
    );
    await this.#check(op, "Info", data);
    return read.readInfo(op, data);
  }

  /** `POST /decisions`: ask the pod's humans to choose. Not retried (it is not idempotent). */
  async createDecision(body: DecisionRequest, options: RequestOptions = {}): Promise<DecisionResponse> {
    const op = "POST /decisions";
    const { data, response } = await this.#call(op, false, options, (signal, headers) =>
      this.raw.POST(`${BASE}/decisions`, { body, signal, headers }),
    );
    await this.#check(op, "DecisionResponse", data, response, 201);
    return read.readDecision(op, data);
  }

  async #call(
    operation: string,
    idempotent: boolean,
    options: RequestOptions,
    run: Call["run"],
    extraMs = 0,
  ): Promise<Answer> {
    try {
      return await execute(
        {
          operation,
          idempotent,
          timeoutMs: (options.timeoutMs ?? this.#timeoutMs) + extraMs,
          retries: options.retries,
          signal: options.signal,
          headers: validTraceContext(options.traceContext ?? this.#traceOf?.()),
          run,
        },
        { retry: this.#retry, sleep: this.#sleep, random: this.#random },
      );
    } catch (err) {
      if (err instanceof CapHttpError && this.#validateOption) await this.#checkError(err);
      throw err;
    }
  }

  async #validatorFn(): Promise<ResponseValidator | undefined> {
    if (!this.#validateOption) return undefined;
    if (!this.#validator) this.#validator = (await import("./validators.js")).validate;
    return this.#validator;
  }

  async #check(
    op: string,
    name: SchemaName,
    data: unknown,
    response?: Response,
    status?: number,
  ): Promise<void> {
    const validate = await this.#validatorFn();
    if (!validate) return;
    if (response && status !== undefined && response.status !== status)
      throw new CapSdkError("invalid_response", `${op} answered ${response.status}; CAP says ${status}`, {
        details: { status: response.status },
      });
    const result = validate(name, data);
    if (!result.valid) {
      const lines = result.issues.map((i) => `${i.path} ${i.message}`);
      throw new CapSdkError(
        "invalid_response",
        `${op} answered a ${name} that breaks the schema: ${lines.join("; ")}`,
        {
          details: { schema: name, issues: result.issues },
        },
      );
    }
  }

  async #checkError(err: CapHttpError): Promise<void> {
    const validate = await this.#validatorFn();
    const result = validate?.("Error", err.body);
    if (result && !result.valid) {
      const lines = result.issues.map((i) => `${i.path} ${i.message}`);
      throw new CapSdkError(
        "invalid_response",
        `${err.operation} answered ${err.status} with an error body that breaks the schema: ${lines.join("; ")}`,
        { cause: err, details: { schema: "Error", status: err.status, issues: result.issues } },
      );
    }
  }
}
