/**
 * CAP event routes: GET /events (claim with lease, optional long-poll and pollId), POST /events/{id}/ack,
 * POST /events/{id}/renew, POST /events/{id}/release, POST /events/ack (batch), and feature `cancel`:
 * POST /events/{id}/cancel and GET /events/{id}/cancellation (the watch). Thin: validate, call the events
 * or cancellations service, shape the answer.
 */

import { CAP_BASE_PATH } from "@commonly/cap-spec/constants";
import type { FastifyInstance } from "fastify";
import { iso } from "../../clock.js";
import { agentOf } from "../callers.js";
import { HangUp } from "../hang-up.js";
import { checks } from "../request-checks.js";
import type { CapRoute } from "../route-types.js";
import type { RouteDeps } from "../types.js";

export async function capEventRoutes(app: FastifyInstance, { kernel, validators, profile }: RouteDeps) {
  app.get<CapRoute<"/events", "get">>(
    "/events",
    {
      // Not a safe read: a HEAD twin would claim events and drop them with the body.
      exposeHeadRoute: false,
      // A poll claims: no cache or intermediary may store or serve any of its answers, errors included
      // (onSend runs for those too, also when authentication refused the request before the handler).
      onSend: (_req, reply, payload, done) => {
        reply.header("Cache-Control", "no-store");
        done(null, payload);
      },
      // `limit` above the configured maxLimit is refused, as /info says (CAP-INFO-2).
      preValidation: checks({
        query: validators.query("cap", "get", `${CAP_BASE_PATH}/events`, { limit: kernel.config.maxLimit }),
      }),
    },
    async (req, reply) => {
      const { limit, waitSeconds, pollId } = req.query;
      // A client that hangs up while its long-poll waits must not have events claimed for it.
      const gone = new HangUp(reply.raw);
      try {
        const events = await kernel.events.poll(agentOf(req), {
          limit,
          waitSeconds,
          ...(pollId !== undefined ? { pollId } : {}),
          signal: gone,
        });
        // Written as text (profiles/events-answer.ts): payloads go out as the store holds them.
        return reply.type("application/json; charset=utf-8").send(profile.eventsBody(events));
      } finally {
        gone.dispose();
      }
    },
  );

  app.post<CapRoute<"/events/{id}/ack", "post">>(
    "/events/:id/ack",
    { preValidation: checks({ body: validators.capModel("AckRequest"), optionalBody: true }) },
    async (req) => {
      await kernel.events.ack(agentOf(req), req.params.id, req.body.result);
      return profile.ackAnswer();
    },
  );

  app.post<CapRoute<"/events/{id}/renew", "post">>(
    "/events/:id/renew",
    { preValidation: checks({ body: validators.capModel("RenewRequest") }) },
    async (req) => {
      const until = await kernel.events.renew(agentOf(req), req.params.id, req.body.attempts);
      return { ok: true, leaseExpiresAt: iso(until) };
    },
  );

  app.post<CapRoute<"/events/{id}/release", "post">>(
    "/events/:id/release",
    { preValidation: checks({ body: validators.capModel("ReleaseRequest") }) },
    async (req) => {
      const r = await kernel.events.release(agentOf(req), req.params.id, req.body);
      return r.status === "pending"
        ? { ok: true, status: "pending", availableAt: iso(r.availableAt) }
        : { ok: true, status: "failed" };
    },
  );

  app.post<CapRoute<"/events/ack", "post">>(
    "/events/ack",
    { preValidation: checks({ body: validators.capModel("BatchAckRequest") }) },
    async (req) => ({
      results: await kernel.events.ackMany(agentOf(req), req.body.acks),
    }),
  );

  // A profile that leaves `cancel` out of /info answers its routes 404 route_not_found, as a kernel without
  // the feature would (CAP-INFO-3): a driver tried against it must not come to rely on them.
  if (profile.unadvertised.includes("cancel")) return;

  app.post<CapRoute<"/events/{id}/cancel", "post">>(
    "/events/:id/cancel",
    { preValidation: checks({ body: validators.capModel("CancelRequest"), optionalBody: true }) },
    async (req) => ({
      ok: true,
      ...(await kernel.cancellations.asAgent(agentOf(req), req.params.id, req.body.reason)),
    }),
  );

  app.get<CapRoute<"/events/{id}/cancellation", "get">>(
    "/events/:id/cancellation",
    {
      // A live read: no cache may store or serve any of its answers, errors included.
      onSend: (_req, reply, payload, done) => {
        reply.header("Cache-Control", "no-store");
        done(null, payload);
      },
      preValidation: checks({
        query: validators.query("cap", "get", `${CAP_BASE_PATH}/events/{id}/cancellation`),
      }),
    },
    async (req, reply) => {
      const { attempts, waitSeconds } = req.query;
      // A watcher that hangs up stops waiting (its slot is given back).
      const gone = new HangUp(reply.raw);
      try {
        const w = await kernel.cancellations.watch(agentOf(req), req.params.id, {
          attempts,
          waitSeconds,
          signal: gone,
        });
        return w.cancelRequested
          ? { cancelRequested: true, reason: w.reason, requestedAt: iso(w.requestedAt) }
          : { cancelRequested: false, leaseExpiresAt: iso(w.leaseExpiresAt) };
      } finally {
        gone.dispose();
      }
    },
  );
}
