/**
 * One HTTP call with a timeout, the caller's `AbortSignal`, and retries with exponential backoff and
 * jitter on network errors, timeouts, 429 and 502/503/504 (honouring `Retry-After`) — only when the
 * caller says the call is safe to repeat. Turns every failure into `CapHttpError` or `CapSdkError`.
 * It must never retry a call that is not idempotent, and never sleep past `maxDelayMs`.
 */
import { CapHttpError, CapSdkError } from "../../errors.js";
import { readErrorBody } from "./lenient.js";
import { linkSignals, type Sleep } from "./time.js";

/** How a client retries idempotent calls. */
export interface RetryPolicy {
  /** Extra attempts after the first (default 2). */
  retries: number;
  /** Delay before the first retry, doubled on each further one (default 500 ms). */
  baseDelayMs: number;
  /** No single wait is longer; a `Retry-After` above it is not waited for but returned as the error (default 30 s). */
  maxDelayMs: number;
}

export interface CallEnv {
  retry: RetryPolicy;
  sleep: Sleep;
  random: () => number;
}

export interface Call {
  operation: string;
  idempotent: boolean;
  timeoutMs: number;
  retries?: number | undefined;
  signal?: AbortSignal | undefined;
  /** Headers of this call besides the client's own (its trace context), on every attempt. */
  headers?: Record<string, string | undefined> | undefined;
  run: (
    signal: AbortSignal,
    headers: Record<string, string | undefined> | undefined,
  ) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
}

export interface Answer {
  data: unknown;
  response: Response;
}

const RETRY_STATUS = new Set([429, 502, 503, 504]);

/** `Retry-After` as seconds: an integer, or an HTTP date relative to now. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === "") return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** The `CapHttpError` of a non-2xx answer whose body (parsed, or its text) is `error`. */
export function httpError(operation: string, error: unknown, response: Response): CapHttpError {
  const parsed = readErrorBody(error);
  return new CapHttpError({
    status: response.status,
    code: parsed.code,
    message: parsed.message ?? (response.statusText || undefined),
    details: parsed.details,
    requestId: response.headers.get("x-request-id") ?? undefined,
    retryAfterSeconds: parseRetryAfter(response.headers.get("retry-after")),
    operation,
    body: error,
  });
}

function aborted(call: Call): CapSdkError {
  return new CapSdkError("aborted", `${call.operation} aborted`, { cause: call.signal?.reason });
}

async function attempt(call: Call): Promise<Answer> {
  if (call.signal?.aborted) throw aborted(call);
  // One controller per attempt, aborted by the caller's signal or by the timeout (not a second
  // controller for the timeout linked into it: requests are the driver's hot path).
  const { controller, dispose } = linkSignals(call.signal);
  let timedOut: CapSdkError | undefined;
  const timer = setTimeout(() => {
    timedOut = new CapSdkError("timeout", `${call.operation} timed out after ${call.timeoutMs} ms`);
    controller.abort(timedOut);
  }, call.timeoutMs);
  try {
    const { data, error, response } = await call.run(controller.signal, call.headers);
    if (!response.ok) throw httpError(call.operation, error, response);
    return { data, response };
  } catch (err) {
    if (err instanceof CapHttpError || err instanceof CapSdkError) throw err;
    if (call.signal?.aborted) throw aborted(call);
    if (timedOut) throw timedOut;
    if (err instanceof SyntaxError)
      throw new CapSdkError("invalid_response", `${call.operation} answered a body that is not JSON`, {
        cause: err,
      });
    const reason = err instanceof Error ? err.message : String(err);
    throw new CapSdkError("network", `${call.operation} got no answer: ${reason}`, { cause: err });
  } finally {
    clearTimeout(timer);
    dispose();
  }
}

function retryable(err: unknown): boolean {
  if (err instanceof CapHttpError) return RETRY_STATUS.has(err.status);
  return err instanceof CapSdkError && (err.code === "network" || err.code === "timeout");
}

/** Runs `call`, retrying as `env.retry` allows when `call.idempotent`. */
export async function execute(call: Call, env: CallEnv): Promise<Answer> {
  const retries = call.idempotent ? (call.retries ?? env.retry.retries) : 0;
  for (let n = 0; ; n++) {
    try {
      return await attempt(call);
    } catch (err) {
      if (n >= retries || !retryable(err) || call.signal?.aborted) throw err;
      const backoff = Math.min(env.retry.maxDelayMs, env.retry.baseDelayMs * 2 ** n);
      let delay = backoff * (0.5 + env.random() * 0.5);
      const retryAfter = err instanceof CapHttpError ? err.retryAfterSeconds : undefined;
      if (retryAfter !== undefined) {
        if (retryAfter * 1000 > env.retry.maxDelayMs) throw err;
        delay = Math.max(delay, retryAfter * 1000);
      }
      await env.sleep(delay, call.signal);
      if (call.signal?.aborted) throw aborted(call);
    }
  }
}
