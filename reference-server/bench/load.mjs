/**
 * The bench's load generator: undici `Pool`s (npm, so `pnpm bench` needs nothing but the repo's files).
 * undici's client parses HTTP with llhttp in WebAssembly and keeps allocation per request small, so it
 * saturates a Fastify hello-world from one thread where `node:http` could not (the superseded generator
 * reached only a fraction of the server's capacity, and every ratio was inflated by it). The same client
 * drives the Fastify baseline and every kernel scenario, so a ratio compares servers, not clients, and
 * calibrate.mjs checks it against autocannon on the baseline route in each run.
 *
 * A request sequence (poll → ack) needs a client that awaits each answer, which autocannon's fixed request
 * loop cannot express; undici can, and its closed loop here is the same shape as a real driver's.
 *
 * Must never send traffic anywhere but loopback, and every loop here is bounded by a deadline and a count.
 */
import { Client, Pool } from "undici";

const LOOPBACK = ["127.0.0.1", "localhost", "[::1]"];

/** A client with its own keep-alive connection pool (one per simulated driver or closed-loop worker). */
export function createClient(baseUrl, { sockets = 1 } = {}) {
  const url = new URL(baseUrl);
  if (!LOOPBACK.includes(url.hostname)) {
    throw new Error(`bench load goes to loopback only, not ${url.hostname}`);
  }
  // pipelining 1: one request in flight per connection, like a driver; long keep-alive so a long-poll's
  // connection is not recycled between requests. One connection is a bare Client (a Pool of one costs a
  // few % more per request).
  const options = { pipelining: 1, keepAliveTimeout: 60_000 };
  const pool =
    sockets === 1
      ? new Client(url.origin, options)
      : new Pool(url.origin, { ...options, connections: sockets });
  let requests = 0;

  /**
   * One request; resolves with {status, body (parsed JSON or null), ms} once the whole response is read.
   * `at` is performance.now() when the response ended, for latency measurements between requests.
   */
  async function request(method, path, { body, headers = {}, timeoutMs = 60_000 } = {}) {
    const started = performance.now();
    const payload = body === undefined ? undefined : JSON.stringify(body);
    // dispatch with a bare handler, not request(): request() wraps each answer in a stream and promises,
    // and that cost the generator about a fifth more CPU per request (measured on the baseline route,
    // 20–24 against 27–31 µs), enough for the generator to become the limit on a 2-core machine.
    // Time limits through undici's own timers: an AbortSignal.timeout per request halves the rate.
    const { status, text } = await new Promise((resolve, reject) => {
      let statusCode = 0;
      const chunks = [];
      pool.dispatch(
        {
          method,
          path,
          headers: payload === undefined ? headers : { ...headers, "content-type": "application/json" },
          body: payload,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        },
        {
          onConnect() {},
          onHeaders(code) {
            statusCode = code;
            return true;
          },
          onData(chunk) {
            chunks.push(chunk);
            return true;
          },
          onComplete() {
            const buf = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
            resolve({ status: statusCode, text: buf.toString("utf8") });
          },
          onError: reject,
        },
      );
    });
    requests++;
    const at = performance.now();
    let parsed = null;
    if (text.length > 0) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    return { status, body: parsed, ms: at - started, at };
  }

  return {
    request,
    get requests() {
      return requests;
    },
    close: () => pool.destroy(),
  };
}

/**
 * Closed-loop load: `connections` workers, each sending its next request as soon as the previous answered,
 * for `durationMs` after `warmupMs`. Only requests completed inside the measured window count.
 * `onWindow(phase)` is called with "start" and "end" at the window's edges (for CPU readings).
 * Resolves with {requests, seconds, perSecond, errors}.
 */
export async function closedLoop({
  baseUrl,
  method,
  path,
  body,
  headers,
  connections,
  warmupMs,
  durationMs,
  onWindow = () => {},
}) {
  const clients = Array.from({ length: connections }, () => createClient(baseUrl));
  const startAt = performance.now();
  const measureFrom = startAt + warmupMs;
  const stopAt = measureFrom + durationMs;
  const edges = [
    setTimeout(() => onWindow("start"), warmupMs),
    setTimeout(() => onWindow("end"), warmupMs + durationMs),
  ];
  let counted = 0;
  let errors = 0;
  try {
    await Promise.all(
      clients.map(async (c) => {
        while (performance.now() < stopAt) {
          const r = await c.request(method, path, { body, headers });
          if (r.status >= 400) errors++;
          if (r.at >= measureFrom && r.at <= stopAt) counted++;
        }
      }),
    );
  } finally {
    for (const t of edges) clearTimeout(t);
    await Promise.all(clients.map((c) => c.close()));
  }
  const seconds = durationMs / 1000;
  return { requests: counted, seconds, perSecond: counted / seconds, errors };
}
