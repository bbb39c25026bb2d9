// @ts-check
/**
 * The console's only door to the kernel: the admin HTTP API on this origin, with a human's bearer token.
 * Every route the console uses is named here, once. Errors come back as {code, message} (CAP §Errors,
 * the same shape on the admin surface) and are thrown as ApiError.
 *
 * Must never: call another origin, or send the token anywhere but the Authorization header.
 */

export class ApiError extends Error {
  /** @param {number} status @param {string} code @param {string} message */
  constructor(status, code, message) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
  }
}

/** @param {Record<string, string | number | undefined>} query */
function qs(query) {
  const entries = Object.entries(query).filter(([, v]) => v !== undefined && v !== "");
  return entries.length ? `?${new URLSearchParams(entries.map(([k, v]) => [k, String(v)]))}` : "";
}

const enc = encodeURIComponent;

/** @param {{token: string, fetch?: typeof fetch}} options */
export function createApi({ token, fetch: fetchImpl = globalThis.fetch.bind(globalThis) }) {
  /** @param {string} method @param {string} path @param {unknown} [body] */
  async function call(method, path, body) {
    /** @type {Record<string, string>} */
    const headers = { authorization: `Bearer ${token}`, accept: "application/json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    let res;
    try {
      res = await fetchImpl(path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (err) {
      throw new ApiError(
        0,
        "network_error",
        `The kernel did not answer (${/** @type {Error} */ (err).message}).`,
      );
    }
    const text = await res.text();
    /** @type {any} */
    let data = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch {
      data = null;
    }
    if (!res.ok) {
      throw new ApiError(
        res.status,
        data?.code ?? `http_${res.status}`,
        data?.message ?? `HTTP ${res.status}`,
      );
    }
    return data;
  }

  return {
    /** The human the token belongs to. */
    me: () => call("GET", "/api/users/me"),
    /** Pods the human can see. */
    pods: () => call("GET", "/api/pods").then((d) => d.pods ?? d),
    /** Newest first, as the kernel lists them. @param {string} podId */
    messages: (podId, limit = 50) =>
      call("GET", `/api/pods/${enc(podId)}/messages${qs({ limit })}`).then((d) => d.messages ?? d),
    /** @param {string} podId @param {string} content */
    postMessage: (podId, content) => call("POST", `/api/pods/${enc(podId)}/messages`, { content }),
    /** Every active agent of the pod with its recent events. @param {string} podId */
    queue: (podId) => call("GET", `/api/admin/pods/${enc(podId)}/queue`),
    /** @param {{podId: string, agentName: string, instanceId?: string, type: string, payload: Record<string, unknown>}} input */
    injectEvent: (input) => call("POST", "/api/admin/events", input),
    /** @param {string} podId */
    deadLetters: (podId) => call("GET", `/api/admin/dead-letters${qs({ podId })}`).then((d) => d.events ?? d),
    /**
     * Stops a running delivery, or drops a pending event, as this human (feature `cancel`): answers
     * `{ok, status, changed}`; without a reason the kernel records `requested`.
     * @param {string} podId @param {string} eventId @param {string} [reason]
     */
    cancelEvent: (podId, eventId, reason) =>
      call("POST", `/api/pods/${enc(podId)}/events/${enc(eventId)}/cancel`, reason ? { reason } : {}),
    /**
     * One message's story from the kernel's own records (TraceView): the message, the events it enqueued,
     * every delivery, ack and reply. @param {string} podId @param {string} messageId
     */
    messageTrace: (podId, messageId) =>
      call("GET", `/api/pods/${enc(podId)}/messages/${enc(messageId)}/trace`),
    /** The same view for an event, rooted at its cause message when it has one. @param {string} podId @param {string} eventId */
    eventTrace: (podId, eventId) => call("GET", `/api/pods/${enc(podId)}/events/${enc(eventId)}/trace`),
    /** @param {string} eventId */
    requeue: (eventId) => call("POST", `/api/admin/dead-letters/${enc(eventId)}/requeue`),
  };
}
