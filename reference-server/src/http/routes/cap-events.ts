/**
 * CAP event routes: GET /events (claim with lease, optional long-poll), POST /events/{id}/ack,
 * POST /events/{id}/renew. Thin: validate, call the events service, shape the answer.
 */
import type { FastifyInstance } from "fastify";
import { iso } from "../../clock.js";
import { checks } from "../request-checks.js";
import type { RouteDeps } from "../types.js";

const BASE = "/api/agents/runtime";

export async function capEventRoutes(app: FastifyInstance, { kernel, validators, profile }: RouteDeps) {
  app.get(
    "/events",
    { preValidation: checks({ query: validators.query("cap", "get", `${BASE}/events`) }) },
    async (req, reply) => {
      const { limit, waitSeconds } = req.query as { limit: number; waitSeconds: number };
      // A client that hangs up while its long-poll waits must not have events claimed for it.
      const gone = new AbortController();
      const onClose = () => {
        if (!reply.raw.writableEnded) gone.abort();
      };
      reply.raw.once("close", onClose);
      try {
        const events = await kernel.events.poll(req.agent!, { limit, waitSeconds, signal: gone.signal });
        return { events: events.map(profile.event) };
      } finally {
        reply.raw.off("close", onClose);
      }
    },
  );

  app.post(
    "/events/:id/ack",
    { preValidation: checks({ body: validators.capModel("AckRequest"), optionalBody: true }) },
    async (req) => {
      const { id } = req.params as { id: string };
      await kernel.events.ack(req.agent!, id, (req.body as { result?: unknown }).result);
      return profile.ackAnswer();
    },
  );

  app.post(
    "/events/:id/renew",
    { preValidation: checks({ body: validators.capModel("RenewRequest") }) },
    async (req) => {
      const { id } = req.params as { id: string };
      const until = await kernel.events.renew(req.agent!, id, (req.body as { attempts: number }).attempts);
      return { ok: true, leaseExpiresAt: iso(until) };
    },
  );
}
