/**
 * Graceful close that does not wait on clients: close() releases every long-poll (`release`), lets the
 * requests in flight finish (up to `graceMs`), then drops every connection still open. New requests that
 * arrive while closing (`isClosing`) are answered 503 unavailable. Without the last
 * step Node's server.close() waits for connections that carry no finished request — a socket a client
 * opened and never used, or one whose long-poll it abandoned but kept open — until the client gives up,
 * which took seconds with fetch's pool and tripped `cap-kernel serve`'s 30 s forced exit (code 1) with
 * longer-lived ones. Must never cut a request that is still being answered inside the grace period.
 */
import type { FastifyInstance } from "fastify";
import { KernelError } from "../errors/registry.js";

export function installGracefulClose(
  app: FastifyInstance,
  release: () => void,
  isClosing: () => boolean,
  graceMs = 10_000,
): void {
  let inFlight = 0;
  const answered = () => {
    inFlight--;
  };
  // One callback hook for both jobs, not two, and not an async one: it runs on every request.
  app.addHook("onRequest", (_req, reply, done) => {
    if (isClosing()) {
      done(new KernelError("unavailable", "The kernel is shutting down."));
      return;
    }
    inFlight++;
    // `close` fires once per response, finished or aborted, so the count cannot drift. One listener
    // function for every response (`on`, not `once`): `once` wraps a new closure per request.
    reply.raw.on("close", answered);
    done();
  });
  app.addHook("preClose", async () => {
    release();
    const until = Date.now() + graceMs;
    while (inFlight > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    app.server.closeAllConnections?.();
  });
}
