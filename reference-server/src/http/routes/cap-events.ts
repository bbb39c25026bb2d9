/**
 * CAP event routes: GET /events (claim with lease, optional long-poll and pollId), POST /events/{id}/ack,
 * POST /events/{id}/renew, POST /events/{id}/release, POST /events/ack (batch). Thin: validate, call the
 * events service, shape the answer.
 */
import type { FastifyInstance } from "fastify";
import { iso } from "../../clock.js";
import type { BatchAckItem, ReleaseBody } from "../../services/deliveries.js";
import { checks } from "../request-checks.js";
import type { RouteDeps } from "../types.js";

const BASE = "/api/agents/runtime";

export async function capEventRoutes(app: FastifyInstance, { kernel, validators, profile }: RouteDeps) {
  app.get(
    "/events",
    { preValidation: checks({ query: validators.query("cap", "get", `${BASE}/events`) }) },
    async (req, reply) => {
      const { limit, waitSeconds, pollId } = req.query as {
        limit: number;
        waitSeconds: number;
        pollId?: string;
      };
      // A poll claims: no cache or intermediary may store or serve its answer.
      reply.header("Cache-Control", "no-store");
      // A client that hangs up while its long-poll waits must not have events claimed for it.
      const gone = new AbortController();
      const onClose = () => {
        if (!reply.raw.writableEnded) gone.abort();
      };
      reply.raw.once("close", onClose);
      try {
        const events = await kernel.events.poll(req.agent!, {
          limit,
          waitSeconds,
          ...(pollId !== undefined ? { pollId } : {}),
          signal: gone.signal,
        });
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

  app.post(
    "/events/:id/release",
    { preValidation: checks({ body: validators.capModel("ReleaseRequest") }) },
    async (req) => {
      const { id } = req.params as { id: string };
      const r = await kernel.events.release(req.agent!, id, req.body as ReleaseBody);
      return r.status === "pending"
        ? { ok: true, status: "pending", availableAt: iso(r.availableAt) }
        : { ok: true, status: "failed" };
    },
  );

  app.post(
    "/events/ack",
    { preValidation: checks({ body: validators.capModel("BatchAckRequest") }) },
    async (req) => ({
      results: await kernel.events.ackMany(req.agent!, (req.body as { acks: BatchAckItem[] }).acks),
    }),
  );
}
