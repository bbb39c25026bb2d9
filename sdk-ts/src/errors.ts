/**
 * The SDK's two error types. `CapHttpError` is a kernel's answer (a non-2xx status with a `code`);
 * `CapSdkError` is a local failure (timeout, network, unreadable answer, a stopped driver). Both are
 * branded with `Symbol.for(...)` so `instanceof` works when two copies of the SDK share a process.
 * Never put a token or a request body into a message.
 */

const HTTP_BRAND = Symbol.for("cap-sdk.CapHttpError");
const SDK_BRAND = Symbol.for("cap-sdk.CapSdkError");

function branded(value: unknown, brand: symbol): boolean {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[brand] === true;
}

/** A kernel answered with a non-2xx status. */
export class CapHttpError extends Error {
  /** HTTP status. */
  readonly status: number;
  /**
   * The kernel's stable error code (`lease_lost`, `token_revoked`, …). Kernels that send no code
   * (the production kernel sometimes does not) get `http_<status>`; treat unknown codes by `status`.
   */
  readonly code: string;
  /** `details` of the error body, when the kernel sent any. */
  readonly details: Record<string, unknown> | undefined;
  /** The `x-request-id` response header, when present: quote it when reporting a kernel fault. */
  readonly requestId: string | undefined;
  /** Seconds from a `Retry-After` header, when present and parseable. */
  readonly retryAfterSeconds: number | undefined;
  /** `METHOD /path` of the request that failed. */
  readonly operation: string;
  /** The error body as the kernel sent it (parsed JSON, or text). */
  readonly body: unknown;

  constructor(init: {
    status: number;
    code?: string | undefined;
    message?: string | undefined;
    details?: Record<string, unknown> | undefined;
    requestId?: string | undefined;
    retryAfterSeconds?: number | undefined;
    operation: string;
    body?: unknown;
  }) {
    const code = init.code ?? `http_${init.status}`;
    super(`${init.operation} failed with ${init.status} ${code}: ${init.message ?? "no message"}`);
    this.name = "CapHttpError";
    this.status = init.status;
    this.code = code;
    this.details = init.details;
    this.requestId = init.requestId;
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.operation = init.operation;
    this.body = init.body;
    Object.defineProperty(this, HTTP_BRAND, { value: true });
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return branded(value, HTTP_BRAND);
  }
}

/**
 * The registry of local failures: each `CapSdkError` code, declared once, with what it means. The
 * README's error table is tested against it; codes are never renamed or reused.
 */
export const SDK_ERROR_CODES = {
  timeout: "The request took longer than its timeout.",
  aborted: "The caller's AbortSignal fired.",
  network: "No HTTP answer: connection refused or reset, DNS failure, a response cut off.",
  invalid_response: "An answer the SDK cannot read, or (with validate) one that breaks the schema.",
  not_posted: "A 2xx answer to a post that says nothing was posted (production kernel skipped/refused).",
  lease_lost: "The driver lost the lease of the event a handler was working on.",
  auth_stopped: "The driver stopped after three consecutive 401/403 answers to its polls.",
  cancelled: "The event a handler was working on was cancelled (a `CancelledError`; its `reason` says why).",
} as const;

/** What went wrong locally: `timeout`, `aborted`, `network`, `invalid_response`, `not_posted`, `lease_lost`, `auth_stopped`, `cancelled` (README § CapSdkError codes). */
export type CapSdkErrorCode = keyof typeof SDK_ERROR_CODES;

/** A local failure: no usable answer from the kernel, or a driver that had to stop. */
export class CapSdkError extends Error {
  readonly code: CapSdkErrorCode;
  /** Structured context: for `invalid_response` with `validate`, `issues` lists `{path, message}`. */
  readonly details: Record<string, unknown> | undefined;

  constructor(
    code: CapSdkErrorCode,
    message: string,
    options?: { cause?: unknown; details?: Record<string, unknown> },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "CapSdkError";
    this.code = code;
    this.details = options?.details;
    Object.defineProperty(this, SDK_BRAND, { value: true });
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return branded(value, SDK_BRAND);
  }
}

const CANCELLED_BRAND = Symbol.for("cap-sdk.CancelledError");

/**
 * The reason a handler's `ctx.signal` aborts with when its event was cancelled (CAP feature `cancel`): a
 * human pressed Stop, an operator or the agent cancelled it, or a newer message superseded it. Stop the
 * work and return; posting is over for this event (`ctx.reply` throws this error), and the driver acks
 * the event `cancelled` once the handler has settled. A `CapSdkError` with code `cancelled`.
 */
export class CancelledError extends CapSdkError {
  /** The canceller's reason: `requested` when none was given, `superseded` for double texting. */
  readonly reason: string;
  /** When the event was cancelled, when the kernel said (the watch does; a renew answer does not). */
  readonly requestedAt: string | undefined;

  constructor(eventId: string, reason: string, requestedAt?: string, options?: { cause?: unknown }) {
    super("cancelled", `event ${eventId} was cancelled (${reason})`, {
      ...options,
      details: { eventId, reason, ...(requestedAt ? { requestedAt } : {}) },
    });
    this.name = "CancelledError";
    this.reason = reason;
    this.requestedAt = requestedAt;
    Object.defineProperty(this, CANCELLED_BRAND, { value: true });
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return branded(value, CANCELLED_BRAND);
  }
}
