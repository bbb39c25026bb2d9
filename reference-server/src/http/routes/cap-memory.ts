/**
 * CAP memory routes: GET /memory, PUT /memory, POST /memory/sync. Unknown section keys answer
 * 400 unknown_memory_section (checked before the schema, which would call them validation_failed).
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { type PutMemoryBody, rejectUnknownSections, type SyncMemoryBody } from "../../services/memory.js";
import { checks } from "../request-checks.js";
import type { RouteDeps } from "../types.js";

const sectionsFirst = (req: FastifyRequest) => {
  const body = req.body as { sections?: unknown } | null;
  if (body !== null && typeof body === "object") rejectUnknownSections(body.sections);
};

export async function capMemoryRoutes(app: FastifyInstance, { kernel, validators }: RouteDeps) {
  app.get("/memory", async (req) => kernel.memory.get(req.agent!));

  app.put(
    "/memory",
    { preValidation: checks({ body: validators.capModel("PutMemoryRequest"), beforeBody: sectionsFirst }) },
    async (req) => {
      await kernel.memory.put(req.agent!, req.body as PutMemoryBody);
      return { ok: true, schemaVersion: 2 };
    },
  );

  app.post(
    "/memory/sync",
    { preValidation: checks({ body: validators.capModel("SyncMemoryRequest"), beforeBody: sectionsFirst }) },
    async (req) => {
      const { deduped } = await kernel.memory.sync(req.agent!, req.body as SyncMemoryBody);
      return deduped ? { ok: true, schemaVersion: 2, deduped: true } : { ok: true, schemaVersion: 2 };
    },
  );
}
