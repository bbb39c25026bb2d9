import { wireDecision } from "../../services/decisions.js";
import { wireJoinCode } from "../../services/joins.js";
import { wireMember, wirePod } from "../../services/pods.js";
import { wireInstallation } from "../../services/registry.js";
import { checks } from "../request-checks.js";
export async function adminPodRoutes(app, { kernel, validators }) {
    app.post("/pods", { preValidation: checks({ body: validators.adminModel("CreatePodRequest") }) }, async (req, reply) => reply.code(201).send(wirePod(await kernel.pods.createPod(req.user.userId, req.body.name))));
    app.get("/pods", async (req) => ({ pods: (await kernel.pods.list(req.user)).map(wirePod) }));
    app.get("/pods/:podId", async (req) => {
        const { pod, members, installations } = await kernel.pods.get(req.user, req.params.podId);
        return {
            pod: wirePod(pod),
            members: members.map(wireMember),
            installations: installations.map(wireInstallation),
        };
    });
    app.post("/pods/:podId/members", { preValidation: checks({ body: validators.adminModel("PutMemberRequest") }) }, async (req) => wireMember(await kernel.pods.addMember(req.user, req.params.podId, req.body)));
    app.delete("/pods/:podId/members/:userId", async (req) => {
        const { podId, userId } = req.params;
        await kernel.pods.removeMember(req.user, podId, userId);
        return { ok: true };
    });
    app.post("/pods/:podId/messages", { preValidation: checks({ body: validators.adminModel("HumanPostMessageRequest") }) }, async (req, reply) => {
        const { podId } = req.params;
        return reply.code(201).send(await kernel.messages.postAsHuman(req.user, podId, req.body));
    });
    app.get("/pods/:podId/messages", { preValidation: checks({ query: validators.query("admin", "get", "/api/pods/{podId}/messages") }) }, async (req) => {
        const { podId } = req.params;
        const { limit, before } = req.query;
        return { messages: await kernel.messages.list(req.user, podId, { limit, before }) };
    });
    app.get("/pods/:podId/decisions", async (req) => ({
        decisions: (await kernel.decisions.list(req.user, req.params.podId)).map(wireDecision),
    }));
    app.get("/decisions/:decisionId", async (req) => wireDecision(await kernel.decisions.get(req.user, req.params.decisionId)));
    app.post("/decisions/:decisionId/answer", { preValidation: checks({ body: validators.adminModel("AnswerDecisionRequest") }) }, async (req, reply) => reply.code(201).send(await kernel.decisions.answer(req.user, req.params.decisionId, req.body.option)));
    app.post("/pods/:podId/join-codes", { preValidation: checks({ body: validators.adminModel("CreateJoinCodeRequest") }) }, async (req, reply) => {
        const { code, record } = await kernel.joins.create(req.user, req.params.podId, req.body);
        return reply.code(201).send({ ...wireJoinCode(record), code });
    });
    app.get("/pods/:podId/join-codes", async (req) => ({
        joinCodes: (await kernel.joins.list(req.user, req.params.podId)).map(wireJoinCode),
    }));
}
//# sourceMappingURL=admin-pods.js.map