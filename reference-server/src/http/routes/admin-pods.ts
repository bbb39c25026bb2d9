/**
 * Admin routes for pods: create/list/get, members, human messages, decisions and their answers,
 * join codes. Humans post through the same messages service as agents, so fan-out is identical.
 */
import type { FastifyInstance } from "fastify";
import type { PodRole } from "../../kernel.js";
import { wireDecision } from "../../services/decisions.js";
import { wireJoinCode } from "../../services/joins.js";
import type { PostMessageBody } from "../../services/messages.js";
import { wireMember, wirePod } from "../../services/pods.js";
import { wireInstallation } from "../../services/registry.js";
import { checks } from "../request-checks.js";
import type { RouteDeps } from "../types.js";

export async function adminPodRoutes(app: FastifyInstance, { kernel, validators }: RouteDeps) {
  app.post(
    "/pods",
    { preValidation: checks({ body: validators.adminModel("CreatePodRequest") }) },
    async (req, reply) =>
      reply
        .code(201)
        .send(wirePod(await kernel.pods.createPod(req.user!.userId, (req.body as { name: string }).name))),
  );

  app.get("/pods", async (req) => ({ pods: (await kernel.pods.list(req.user!)).map(wirePod) }));

  app.get("/pods/:podId", async (req) => {
    const { podId } = req.params as { podId: string };
    const { pod, members, installations } = await kernel.pods.get(req.user!, podId);
    return {
      pod: wirePod(pod),
      members: members.map(wireMember),
      installations: installations.map(wireInstallation),
    };
  });

  app.post(
    "/pods/:podId/members",
    { preValidation: checks({ body: validators.adminModel("PutMemberRequest") }) },
    async (req) => {
      const { podId } = req.params as { podId: string };
      return wireMember(
        await kernel.pods.addMember(req.user!, podId, req.body as { userId: string; role?: PodRole }),
      );
    },
  );

  app.delete("/pods/:podId/members/:userId", async (req) => {
    const { podId, userId } = req.params as { podId: string; userId: string };
    await kernel.pods.removeMember(req.user!, podId, userId);
    return { ok: true };
  });

  app.post(
    "/pods/:podId/messages",
    { preValidation: checks({ body: validators.adminModel("HumanPostMessageRequest") }) },
    async (req, reply) => {
      const { podId } = req.params as { podId: string };
      return reply
        .code(201)
        .send(await kernel.messages.postAsHuman(req.user!, podId, req.body as PostMessageBody));
    },
  );

  app.get(
    "/pods/:podId/messages",
    { preValidation: checks({ query: validators.query("admin", "get", "/api/pods/{podId}/messages") }) },
    async (req) => {
      const { podId } = req.params as { podId: string };
      const { limit, before } = req.query as { limit: number; before?: string };
      return { messages: await kernel.messages.list(req.user!, podId, { limit, before }) };
    },
  );

  app.get("/pods/:podId/decisions", async (req) => {
    const { podId } = req.params as { podId: string };
    return { decisions: (await kernel.decisions.list(req.user!, podId)).map(wireDecision) };
  });

  app.get("/decisions/:decisionId", async (req) => {
    const { decisionId } = req.params as { decisionId: string };
    return wireDecision(await kernel.decisions.get(req.user!, decisionId));
  });

  app.post(
    "/decisions/:decisionId/answer",
    { preValidation: checks({ body: validators.adminModel("AnswerDecisionRequest") }) },
    async (req, reply) => {
      const { decisionId } = req.params as { decisionId: string };
      const { option } = req.body as { option: string };
      return reply.code(201).send(await kernel.decisions.answer(req.user!, decisionId, option));
    },
  );

  app.post(
    "/pods/:podId/join-codes",
    { preValidation: checks({ body: validators.adminModel("CreateJoinCodeRequest") }) },
    async (req, reply) => {
      const { podId } = req.params as { podId: string };
      const { code, record } = await kernel.joins.create(req.user!, podId, req.body as Record<string, never>);
      return reply.code(201).send({ ...wireJoinCode(record), code });
    },
  );

  app.get("/pods/:podId/join-codes", async (req) => {
    const { podId } = req.params as { podId: string };
    return { joinCodes: (await kernel.joins.list(req.user!, podId)).map(wireJoinCode) };
  });
}
