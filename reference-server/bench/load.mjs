/**
 * The bench's own load generator: `node:http` with keep-alive Agents, so CI needs nothing but the repo's
 * files (no wrk, no autocannon). The same client drives the Fastify baseline and the kernel, so a ratio
 * between the two compares servers, not clients.
 *
 * Must never send traffic anywhere but loopback, and every loop here is bounded by a deadline and a count.
 */
import http from "node:http";

/** A client with its own keep-alive connection pool (one per simulated driver or closed-loop worker). */
export function createClient(baseUrl, { sockets = 1 } = {}) {
  const url = new URL(baseUrl);
  if (!["127.0.0.1", "localhost", "[::1]"].includes(url.hostname)) {
    throw new Error(`bench load goes to loopback only, not ${url.hostname}`);
  }
  // noDelay: small request/response pairs must not wait on Nagle's algorithm.
  const agent = new http.Agent({
    keepAlive: true,
    maxSockets: sockets,
    maxFreeSockets: sockets,
    noDelay: true,
  });
  let requests = 0;

  /**
   * One request; resolves with {status, body (parsed JSON or null), ms} once the whole response is read.
   * `at` is performance.now() when the response ended, for latency measurements between requests.
   */
  function request(method, path, { body, headers = {}, timeoutMs = 60_000 } = {}) {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const started = performance.now();
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          agent,
          host: url.hostname.replace(/^\[|\]$/g, ""),
          port: url.port,
          method,
          path,
          headers: {
            ...headers,
            ...(payload ? { "content-type": "application/json", "content-length": payload.length } : {}),
          },
        },
        (res) => {
          const chunks = [];
          res.on("data", (c) => chunks.push(c));
          res.on("end", () => {
            requests++;
            const at = performance.now();
            const text = Buffer.concat(chunks).toString("utf8");
            let parsed = null;
            if (text.length > 0) {
              try {
                parsed = JSON.parse(text);
              } catch {
                parsed = text;
              }
            }
            resolve({ status: res.statusCode, body: parsed, ms: at - started, at });
          });
          res.on("error", reject);
        },
      );
      req.setTimeout(timeoutMs, () =>
        req.destroy(new Error(`${method} ${path}: no answer in ${timeoutMs} ms`)),
      );
      req.on("error", reject);
      if (payload) req.end(payload);
      else req.end();
    });
  }

  return {
    request,
    get requests() {
      return requests;
    },
    close: () => agent.destroy(),
  };
}

/**
 * Closed-loop load: `connections` workers, each sending its next request as soon as the previous answered,
 * for `durationMs` after `warmupMs`. Only requests completed inside the measured window count.
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
}) {
  const clients = Array.from({ length: connections }, () => createClient(baseUrl));
  const startAt = performance.now();
  const measureFrom = startAt + warmupMs;
  const stopAt = measureFrom + durationMs;
  let counted = 0;
  let errors = 0;
  await Promise.all(
    clients.map(async (c) => {
      while (performance.now() < stopAt) {
        const r = await c.request(method, path, { body, headers });
        if (r.status >= 400) errors++;
        if (r.at >= measureFrom && r.at <= stopAt) counted++;
      }
    }),
  );
  for (const c of clients) c.close();
  const seconds = durationMs / 1000;
  return { requests: counted, seconds, perSecond: counted / seconds, errors };
}
