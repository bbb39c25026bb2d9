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
export declare function installGracefulClose(app: FastifyInstance, release: () => void, isClosing: () => boolean, graceMs?: number): void;
