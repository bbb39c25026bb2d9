/**
 * Request-rate limits where credentials are tested or handed out, with @fastify/rate-limit (a fixed
 * one-minute window per key, in this process's memory):
 *  - authentication failures per client address: every request answered 401 counts, and once an address
 *    has `limits.authFailuresPerMinute` in its window every further request from it under /api/ is refused
 *    before its token is looked at, until the window ends — a correct guess is refused too, so guessing
 *    gains nothing, and a flood of guesses costs no token look-ups;
 *  - join-code redemptions per client address, every attempt (`limits.joinRedemptionsPerMinute`);
 *  - runtime-token and join-code issuance per human, one budget for both (`limits.issuancesPerMinute`).
 * A refusal is `429 rate_limited` with `Retry-After` (seconds until the window ends) and `details.limit`.
 *
 * Per replica, by design: a shared (PostgreSQL) counter would turn every guessed token into a write on
 * the database all replicas need, which is the load these limits are for; N replicas behind a balancer
 * allow up to N times each limit. The address is the socket's (`req.ip`), so behind a reverse proxy it is
 * the proxy's: there, limit per client at the proxy (reference-server/README.md, "Limits").
 *
 * Must never look up a token for a refused address, count a request twice, or cost a request anything
 * while no address has failed in the last minute (the hot path then skips the look-up entirely).
 */
import rateLimit from "@fastify/rate-limit";
import type { FastifyInstance, FastifyRequest, preHandlerAsyncHookHandler } from "fastify";
import type { KernelLimits } from "../config.js";
import { KernelError } from "../errors/registry.js";

const WINDOW_MS = 60_000;

export interface RouteRateLimits {
  /** Route onRequest hook of POST /api/joins/redeem: per client address. */
  joinRedemption: preHandlerAsyncHookHandler;
  /** Route onRequest hook (after authentication) of the routes that issue runtime tokens or join codes. */
  issuance: preHandlerAsyncHookHandler;
}

type LimitName = "authFailuresPerMinute" | "joinRedemptionsPerMinute" | "issuancesPerMinute";

function refusal(limit: LimitName, max: number, ttlMs: number): KernelError {
  const seconds = Math.max(1, Math.ceil(ttlMs / 1000));
  return new KernelError(
    "rate_limited",
    `Too many requests: at most ${max} per minute (${limit}).`,
    { limit, max },
    { "Retry-After": String(seconds) },
  );
}

export async function installRateLimits(
  app: FastifyInstance,
  limits: Pick<KernelLimits, LimitName>,
): Promise<RouteRateLimits> {
  await app.register(rateLimit, { global: false, timeWindow: WINDOW_MS });

  const authFailures = app.createRateLimit({ max: limits.authFailuresPerMinute });
  // performance.now() of the last 401: no window can still hold a failure a minute after it.
  let lastFailureAt = Number.NEGATIVE_INFINITY;

  app.addHook("onRequest", (req, _reply, done) => {
    if (performance.now() - lastFailureAt >= WINDOW_MS || !req.url.startsWith("/api/")) {
      done();
      return;
    }
    authFailures(req, { increment: false }).then((r) => {
      if (!r.isAllowed && r.remaining === 0) done(refusal("authFailuresPerMinute", r.max, r.ttl));
      else done();
    }, done);
  });
  // onSend, not onResponse: the failure is counted before the client can read its 401 and try again.
  app.addHook("onSend", (req, reply, payload, done) => {
    if (reply.statusCode !== 401) {
      done(null, payload);
      return;
    }
    lastFailureAt = performance.now();
    authFailures(req).then(
      () => done(null, payload),
      () => done(null, payload),
    );
  });

  const perMinute = (limit: LimitName, keyGenerator?: (req: FastifyRequest) => string) =>
    app.rateLimit({
      max: limits[limit],
      ...(keyGenerator ? { keyGenerator } : {}),
      errorResponseBuilder: (_req, ctx) => refusal(limit, ctx.max, ctx.ttl),
    });

  return {
    joinRedemption: perMinute("joinRedemptionsPerMinute"),
    issuance: perMinute("issuancesPerMinute", (req) => `user:${req.user?.userId ?? req.ip}`),
  };
}
