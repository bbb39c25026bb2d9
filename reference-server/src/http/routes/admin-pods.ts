/**
 * Admin routes for pods: create/list/get, members, human messages, cancelling an event (feature
 * `cancel`), the trace view of a message or an event (feature `trace-context`), decisions and their answers,
 * join codes. Humans post through the same messages service as agents, so fan-out is identical.
 */

import type { FastifyInstance } from "fastify";
import { wireDecision } from "../../services/decisions.js";
import { wireJoinCode } from "../../services/joins.js";
import { wireMember, wirePod } from "../../services/pods.js";
import { wireInstallation } from "../../services/registry.js";
import { userOf } from "../callers.js";
import { checks } from "../request-checks.js";
import type { AdminRoute } from "../route-types.js";
import { traceReader } from "../trace-headers.js";
import type { RouteDeps } from "../types.js";

export async function adminPodRoutes(
  app: FastifyInstance,
  { kernel, validators, rateLimits, profile }: RouteDeps,
) {
  const traceOf = traceReader(profile);
  app.post<AdminRoute<"/pods", "post">>(
    "/pods",
    { preValidation: checks({ body: validators.adminModel("CreatePodRequest") }) },
    async (req, reply) =>
      reply.code(201).send(wirePod(await kernel.pods.createPod(userOf(req).userId, req.body.name))),
  );

  app.get("/pods", async (req) => ({ pods: (await kernel.pods.list(userOf(req))).map(wirePod) }));

  app.get<AdminRoute<"/pods/{podId}", "get">>("/pods/:podId", async (req) => {
    const { pod, members, installations } = await kernel.pods.get(userOf(req), req.params.podId);
    return {
      pod: wirePod(pod),
      members: members.map(wireMember),
      installations: installations.map(wireInstallation),
    };
  });

  app.post<AdminRoute<"/pods/{podId}/members", "post">>(
    "/pods/:podId/members",
    { preValidation: checks({ body: validators.adminModel("PutMemberRequest") }) },
    async (req) => wireMember(await kernel.pods.addMember(userOf(req), req.params.podId, req.body)),
  );

  app.delete<AdminRoute<"/pods/{podId}/members/{userId}", "delete">>(
    "/pods/:podId/members/:userId",
    async (req) => {
      const { podId, userId } = req.params;
      await kernel.pods.removeMember(userOf(req), podId, userId);
      return { ok: true };
    },
  );

  app.post<AdminRoute<"/pods/{podId}/events/{eventId}/cancel", "post">>(
    "/pods/:podId/events/:eventId/cancel",
    { preValidation: checks({ body: validators.adminModel("CancelEventRequest"), optionalBody: true }) },
    async (req) => {
      const { podId, eventId } = req.params;
      return {
        ok: true,
        ...(await kernel.cancellations.asHuman(userOf(req), podId, eventId, req.body.reason)),
      };
    },
  );

  app.get<AdminRoute<"/pods/{podId}/messages/{messageId}/trace", "get">>(
    "/pods/:podId/messages/:messageId/trace",
    async (req) => kernel.traces.ofMessage(userOf(req), req.params.podId, req.params.messageId),
  );

  app.get<AdminRoute<"/pods/{podId}/events/{eventId}/trace", "get">>(
    "/pods/:podId/events/:eventId/trace",
    async (req) => kernel.traces.ofEvent(userOf(req), req.params.podId, req.params.eventId),
  );

  app.post<AdminRoute<"/pods/{podId}/messages", "post">>(
    "/pods/:podId/messages",
    { preValidation: checks({ body: validators.adminModel("HumanPostMessageRequest") }) },
    async (req, reply) => {
      const { podId } = req.params;
      return reply
        .code(201)
        .send(await kernel.messages.postAsHuman(userOf(req), podId, req.body, traceOf(req)));
    },
  );

  app.get<AdminRoute<"/pods/{podId}/messages", "get">>(
    "/pods/:podId/messages",
    { preValidation: checks({ query: validators.query("admin", "get", "/api/pods/{podId}/messages") }) },
    async (req) => {
      const { podId } = req.params;
      const { limit, before } = req.query;
      return { messages: await kernel.messages.list(userOf(req), podId, { limit, before }) };
    },
  );

  app.get<AdminRoute<"/pods/{podId}/decisions", "get">>("/pods/:podId/decisions", async (req) => ({
    decisions: (await kernel.decisions.list(userOf(req), req.params.podId)).map(wireDecision),
  }));

  app.get<AdminRoute<"/decisions/{decisionId}", "get">>("/decisions/:decisionId", async (req) =>
    wireDecision(await kernel.decisions.get(userOf(req), req.params.decisionId)),
  );

  app.post<AdminRoute<"/decisions/{decisionId}/answer", "post">>(
    "/decisions/:decisionId/answer",
    { preValidation: checks({ body: validators.adminModel("AnswerDecisionRequest") }) },
    async (req, reply) =>
      reply
        .code(201)
        .send(
          await kernel.decisions.answer(userOf(req), req.params.decisionId, req.body.option, traceOf(req)),
        ),
  );

  app.post<AdminRoute<"/pods/{podId}/join-codes", "post">>(
    "/pods/:podId/join-codes",
    {
      // One issuance budget per human, shared with runtime tokens (rate-limits.ts).
      onRequest: rateLimits.issuance,
      preValidation: checks({ body: validators.adminModel("CreateJoinCodeRequest") }),
    },
    async (req, reply) => {
      const { code, record } = await kernel.joins.create(userOf(req), req.params.podId, req.body);
      return reply.code(201).send({ ...wireJoinCode(record), code });
    },
  );

  app.get<AdminRoute<"/pods/{podId}/join-codes", "get">>("/pods/:podId/join-codes", async (req) => ({
    joinCodes: (await kernel.joins.list(userOf(req), req.params.podId)).map(wireJoinCode),
  }));
}
