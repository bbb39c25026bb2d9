/**
 * CAP memory routes: GET /memory, PUT /memory, POST /memory/sync. Unknown section keys answer
 * 400 unknown_memory_section (checked before the schema, which would call them validation_failed).
 */

import type { FastifyInstance, FastifyRequest } from "fastify";
import { rejectUnknownSections } from "../../services/memory.js";
import { agentOf } from "../callers.js";
import { checks } from "../request-checks.js";
import type { CapRoute } from "../route-types.js";
import type { RouteDeps } from "../types.js";

// Runs before the schema: the body is still whatever the client sent.
const sectionsFirst = (req: FastifyRequest) => {
  const body: unknown = req.body;
  if (body !== null && typeof body === "object")
    rejectUnknownSections("sections" in body ? body.sections : undefined);
};

export async function capMemoryRoutes(app: FastifyInstance, { kernel, validators }: RouteDeps) {
  app.get("/memory", async (req) => kernel.memory.get(agentOf(req)));

  app.put<CapRoute<"/memory", "put">>(
    "/memory",
    { preValidation: checks({ body: validators.capModel("PutMemoryRequest"), beforeBody: sectionsFirst }) },
    async (req) => {
      await kernel.memory.put(agentOf(req), req.body);
      return { ok: true, schemaVersion: 2 };
    },
  );

  app.post<CapRoute<"/memory/sync", "post">>(
    "/memory/sync",
    { preValidation: checks({ body: validators.capModel("SyncMemoryRequest"), beforeBody: sectionsFirst }) },
    async (req) => {
      const { deduped } = await kernel.memory.sync(agentOf(req), req.body);
      return deduped ? { ok: true, schemaVersion: 2, deduped: true } : { ok: true, schemaVersion: 2 };
    },
  );
}
