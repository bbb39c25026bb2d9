/**
 * Admin routes for operators: event injection, dead letters (list, requeue), the per-pod queue view.
 */
import type { FastifyInstance } from "fastify";
import type { EmitInput } from "../../services/operator.js";
import { checks } from "../request-checks.js";
import type { RouteDeps } from "../types.js";

export async function adminOperatorRoutes(app: FastifyInstance, { kernel, validators }: RouteDeps) {
  app.post(
    "/admin/events",
    { preValidation: checks({ body: validators.adminModel("EmitEventRequest") }) },
    async (req, reply) => reply.code(201).send(await kernel.operator.emit(req.user!, req.body as EmitInput)),
  );

  app.get(
    "/admin/dead-letters",
    { preValidation: checks({ query: validators.query("admin", "get", "/api/admin/dead-letters") }) },
    async (req) => ({ events: await kernel.operator.deadLetters(req.user!, req.query as { limit: number }) }),
  );

  app.post("/admin/dead-letters/:eventId/requeue", async (req) => {
    const { eventId } = req.params as { eventId: string };
    return kernel.operator.requeue(req.user!, eventId);
  });

  app.get(
    "/admin/pods/:podId/queue",
    { preValidation: checks({ query: validators.query("admin", "get", "/api/admin/pods/{podId}/queue") }) },
    async (req) => {
      const { podId } = req.params as { podId: string };
      return kernel.operator.queue(req.user!, podId, (req.query as { limit: number }).limit);
    },
  );
}
