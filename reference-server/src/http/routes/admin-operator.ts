/**
 * Admin routes for operators: event injection, dead letters (list, requeue), the per-pod queue view.
 */

import type { FastifyInstance } from "fastify";
import { userOf } from "../callers.js";
import { checks } from "../request-checks.js";
import type { AdminRoute } from "../route-types.js";
import { traceReader } from "../trace-headers.js";
import type { RouteDeps } from "../types.js";

export async function adminOperatorRoutes(app: FastifyInstance, { kernel, validators, profile }: RouteDeps) {
  const traceOf = traceReader(profile);
  app.post<AdminRoute<"/admin/events", "post">>(
    "/admin/events",
    { preValidation: checks({ body: validators.adminModel("EmitEventRequest") }) },
    async (req, reply) =>
      reply.code(201).send(await kernel.operator.emit(userOf(req), req.body, traceOf(req))),
  );

  app.get<AdminRoute<"/admin/dead-letters", "get">>(
    "/admin/dead-letters",
    { preValidation: checks({ query: validators.query("admin", "get", "/api/admin/dead-letters") }) },
    async (req) => ({ events: await kernel.operator.deadLetters(userOf(req), req.query) }),
  );

  app.post<AdminRoute<"/admin/dead-letters/{eventId}/requeue", "post">>(
    "/admin/dead-letters/:eventId/requeue",
    async (req) => kernel.operator.requeue(userOf(req), req.params.eventId),
  );

  app.get<AdminRoute<"/admin/pods/{podId}/queue", "get">>(
    "/admin/pods/:podId/queue",
    { preValidation: checks({ query: validators.query("admin", "get", "/api/admin/pods/{podId}/queue") }) },
    async (req) => kernel.operator.queue(userOf(req), req.params.podId, req.query.limit),
  );
}
