/**
 * CAP message routes: POST /pods/{podId}/messages (with the optional Idempotency-Key header) and
 * GET /pods/{podId}/messages (message-read with `self` / `isBot`).
 */

import { CAP_BASE_PATH } from "@commonly/cap-spec/constants";
import type { FastifyInstance } from "fastify";
import { fail } from "../../errors/registry.js";
import { agentOf } from "../callers.js";
import { checks } from "../request-checks.js";
import type { CapRoute } from "../route-types.js";
import { traceReader } from "../trace-headers.js";
import type { RouteDeps } from "../types.js";

const IDEMPOTENCY_KEY = /^[\x20-\x7e]{1,255}$/;

export async function capMessageRoutes(app: FastifyInstance, { kernel, validators, profile }: RouteDeps) {
  const traceOf = traceReader(profile);
  app.post<CapRoute<"/pods/{podId}/messages", "post">>(
    "/pods/:podId/messages",
    { preValidation: checks({ body: validators.capModel("PostMessageRequest") }) },
    async (req, reply) => {
      const { podId } = req.params;
      const raw = req.headers["idempotency-key"];
      const key = Array.isArray(raw) ? raw[0] : raw;
      if (key !== undefined && !IDEMPOTENCY_KEY.test(key))
        fail("validation_failed", undefined, {
          errors: [
            { path: "/Idempotency-Key", in: "headers", message: "must be 1–255 printable ASCII characters" },
          ],
        });
      const body = req.body;
      const agent = agentOf(req);
      const r = await kernel.messages.postAsAgent(agent, podId, body, req.body, key, traceOf(req));
      if (r.replayed) reply.header("Idempotent-Replayed", "true");
      // A replay has the same body (same hash), so the request describes the stored message exactly.
      const answer = profile.postAnswer({
        ...r.body,
        podId,
        content: body.content,
        author: { id: agent.agentId, kind: "agent", name: agent.agentName },
        ...(body.replyToMessageId !== undefined ? { replyToMessageId: body.replyToMessageId } : {}),
        ...(body.metadata !== undefined ? { metadata: body.metadata } : {}),
      });
      return reply.code(answer.status).send(answer.body);
    },
  );

  app.get<CapRoute<"/pods/{podId}/messages", "get">>(
    "/pods/:podId/messages",
    {
      preValidation: checks({
        query: validators.query("cap", "get", `${CAP_BASE_PATH}/pods/{podId}/messages`),
      }),
    },
    async (req) => {
      const { podId } = req.params;
      const { limit, before } = req.query;
      return { messages: await kernel.messages.list(agentOf(req), podId, { limit, before }) };
    },
  );
}
