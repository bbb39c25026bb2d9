/**
 * The lenient reader: turns what a kernel answered into the CAP shapes, accepting the production
 * kernel's variants (field notes): events with `_id` and no `id`, posts answered 200
 * `{success, message: {_id, id, createdAt}}`, acks answered `{success: true}`, errors as
 * `{message, code?}` or `{error}`. Unknown fields are kept (additive). It must never accept an
 * answer it cannot act on — an event without any id cannot be acked, so that is `invalid_response`.
 */
import { CapSdkError } from "../../errors.js";
import type {
  AckResponse,
  BatchAckResponse,
  Cancellation,
  CancelResponse,
  DecisionResponse,
  Event,
  EventList,
  Info,
  MemoryEnvelope,
  PodMessage,
  PodMessageList,
  PutMemoryResponse,
  ReleaseResponse,
  RenewResponse,
  SyncMemoryResponse,
} from "../../types.js";

type Obj = Record<string, unknown>;

function isObj(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function invalid(operation: string, what: string): CapSdkError {
  return new CapSdkError("invalid_response", `${operation} answered ${what}`);
}

function idOf(raw: Obj): string | undefined {
  const id = raw.id ?? raw._id;
  return typeof id === "string" || typeof id === "number" ? String(id) : undefined;
}

function body(operation: string, data: unknown): Obj {
  if (!isObj(data)) throw invalid(operation, "a body that is not a JSON object");
  return data;
}

export function readEventList(operation: string, data: unknown): EventList {
  const events = body(operation, data).events;
  if (!Array.isArray(events)) throw invalid(operation, "no `events` array");
  return {
    events: events.map((raw, i): Event => {
      if (!isObj(raw)) throw invalid(operation, `events[${i}] that is not an object`);
      const id = idOf(raw);
      if (id === undefined)
        throw invalid(operation, `events[${i}] without an id (neither \`id\` nor \`_id\`)`);
      if (typeof raw.type !== "string") throw invalid(operation, `events[${i}] without a string \`type\``);
      const attempts = Number(raw.attempts);
      return {
        ...raw,
        id,
        type: raw.type,
        podId: raw.podId === undefined || raw.podId === null ? "" : String(raw.podId),
        payload: isObj(raw.payload) ? raw.payload : {},
        attempts: Number.isInteger(attempts) && attempts >= 1 ? attempts : 1,
        createdAt: typeof raw.createdAt === "string" ? raw.createdAt : "",
      };
    }),
  };
}

/** `{id, createdAt}` (CAP) or `{success, message: {...}}` (production); refusals are `not_posted`. */
export function readPosted(operation: string, data: unknown): { id: string; createdAt: string } {
  const raw = body(operation, data);
  if (raw.success === false || raw.refused === true || raw.skipped === true) {
    const reason = typeof raw.reason === "string" ? raw.reason : "no reason given";
    throw new CapSdkError("not_posted", `${operation} posted nothing: ${reason}`, {
      details: { reason, refused: raw.refused === true, skipped: raw.skipped === true },
    });
  }
  const message = isObj(raw.message) ? raw.message : raw;
  const id = idOf(raw) ?? idOf(message);
  if (id === undefined) throw invalid(operation, "no message id");
  const createdAt = raw.createdAt ?? message.createdAt;
  return { id, createdAt: typeof createdAt === "string" ? createdAt : "" };
}

/**
 * `{ok: true}` (CAP), `{success: true}` (production) or no body: the ack was taken. `ok: false` or
 * `success: false`, or JSON that is not an object, says nothing the driver can rely on: not acked.
 */
export function readAck(operation: string, data: unknown): AckResponse {
  if (data === undefined || data === null) return { ok: true };
  const raw = body(operation, data);
  if (raw.ok === false || raw.success === false) throw invalid(operation, "`ok: false` with a 2xx status");
  return { ok: true };
}

export function readRenew(operation: string, data: unknown): RenewResponse {
  const raw = body(operation, data);
  if (typeof raw.leaseExpiresAt !== "string") throw invalid(operation, "no `leaseExpiresAt`");
  return { ...raw, ok: true, leaseExpiresAt: raw.leaseExpiresAt };
}

/** `{ok, status, availableAt?}`; a kernel that answers only `{ok: true}` released to `pending`. */
export function readRelease(operation: string, data: unknown): ReleaseResponse {
  const raw = isObj(data) ? data : {};
  const status = raw.status === "failed" ? "failed" : "pending";
  const at = typeof raw.availableAt === "string" ? { availableAt: raw.availableAt } : {};
  if (raw.ok === false) throw invalid(operation, "`ok: false` with a 2xx status");
  return { ...raw, ok: true, status, ...at };
}

/** `{ok, status, changed}`; a `status` that is not a settled state cannot be acted on. */
export function readCancel(operation: string, data: unknown): CancelResponse {
  const raw = body(operation, data);
  const status = raw.status;
  if (status !== "cancelled" && status !== "acked" && status !== "failed")
    throw invalid(operation, "no `status` of `cancelled`, `acked` or `failed`");
  if (raw.ok === false) throw invalid(operation, "`ok: false` with a 2xx status");
  return { ...raw, ok: true, status, changed: raw.changed === true };
}

/** `{cancelRequested: true, reason, requestedAt}` or `{cancelRequested: false, leaseExpiresAt}`. */
export function readCancellation(operation: string, data: unknown): Cancellation {
  const raw = body(operation, data);
  const text = (key: string, fallback: string) => (typeof raw[key] === "string" ? raw[key] : fallback);
  if (raw.cancelRequested === true)
    return {
      ...raw,
      cancelRequested: true,
      reason: text("reason", "requested"),
      requestedAt: text("requestedAt", ""),
    };
  if (raw.cancelRequested === false)
    return { ...raw, cancelRequested: false, leaseExpiresAt: text("leaseExpiresAt", "") };
  throw invalid(operation, "no boolean `cancelRequested`");
}

/** One result per id sent, in order; anything else cannot be matched to the acks and is invalid. */
export function readBatchAck(operation: string, data: unknown, ids: string[]): BatchAckResponse["results"] {
  const results = body(operation, data).results;
  if (!Array.isArray(results) || results.length !== ids.length)
    throw invalid(operation, `no \`results\` array of ${ids.length} items`);
  return results.map((raw, i) => {
    const id = ids[i]!;
    if (!isObj(raw) || (idOf(raw) ?? id) !== id)
      throw invalid(operation, `results[${i}] that is not the result for ${id}`);
    if (raw.ok === true) return { id, ok: true as const };
    const code = typeof raw.code === "string" ? raw.code : "http_200";
    return { id, ok: false as const, code };
  });
}

export function readMessages(operation: string, data: unknown): PodMessageList {
  const messages = body(operation, data).messages;
  if (!Array.isArray(messages)) throw invalid(operation, "no `messages` array");
  return {
    messages: messages.map((raw, i): PodMessage => {
      if (!isObj(raw)) throw invalid(operation, `messages[${i}] that is not an object`);
      const id = idOf(raw);
      if (id === undefined) throw invalid(operation, `messages[${i}] without an id`);
      return {
        ...(raw as unknown as PodMessage),
        id,
        content: typeof raw.content === "string" ? raw.content : "",
        self: raw.self === true,
        isBot: raw.isBot === true,
      };
    }),
  };
}

export function readMemory(operation: string, data: unknown): MemoryEnvelope {
  const raw = body(operation, data);
  return {
    ...raw,
    content: typeof raw.content === "string" ? raw.content : "",
    sections: isObj(raw.sections) ? raw.sections : {},
    schemaVersion: 2,
  };
}

export function readWrite(data: unknown): PutMemoryResponse & SyncMemoryResponse {
  const raw = isObj(data) ? data : {};
  return { ...raw, ok: true, schemaVersion: 2 };
}

export function readInfo(operation: string, data: unknown): Info {
  const raw = body(operation, data);
  const num = (key: string): number => {
    const value = raw[key];
    if (typeof value !== "number") throw invalid(operation, `no numeric \`${key}\``);
    return value;
  };
  return {
    ...raw,
    protocol: "cap",
    version: "1",
    leaseSeconds: num("leaseSeconds"),
    maxAttempts: num("maxAttempts"),
    maxLimit: num("maxLimit"),
    maxWaitSeconds: typeof raw.maxWaitSeconds === "number" ? raw.maxWaitSeconds : 0,
    maxMessageBytes: typeof raw.maxMessageBytes === "number" ? raw.maxMessageBytes : 65536,
    features: Array.isArray(raw.features) ? raw.features.filter((f) => typeof f === "string") : [],
  };
}

export function readDecision(operation: string, data: unknown): DecisionResponse {
  const raw = body(operation, data);
  const id = idOf(raw);
  if (id === undefined || typeof raw.messageId !== "string") throw invalid(operation, "no `id`/`messageId`");
  return {
    ...raw,
    id,
    messageId: raw.messageId,
    createdAt: typeof raw.createdAt === "string" ? raw.createdAt : "",
  };
}

/** The parts of an error body: CAP `{code, message, details}`, production `{message, code?, reason?}` or `{error}`. */
export function readErrorBody(data: unknown): { code?: string; message?: string; details?: Obj } {
  if (typeof data === "string") return data.trim() ? { message: data.trim().slice(0, 500) } : {};
  if (!isObj(data)) return {};
  const code = typeof data.code === "string" && /^[a-z][a-z0-9_]*$/.test(data.code) ? data.code : undefined;
  const text = [data.message, data.error].find((v) => typeof v === "string") as string | undefined;
  let details = isObj(data.details) ? data.details : undefined;
  if (typeof data.reason === "string") details = { ...details, reason: data.reason };
  return { code, message: text, details };
}
