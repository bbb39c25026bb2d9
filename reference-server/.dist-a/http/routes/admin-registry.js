import { iso } from "../../clock.js";
import { wireInstallation, wireRuntimeToken } from "../../services/registry.js";
import { checks } from "../request-checks.js";
const wireRegistry = (a) => ({
    name: a.name,
    manifest: a.manifest,
    publishedBy: a.publishedBy,
    createdAt: iso(a.createdAt),
    updatedAt: iso(a.updatedAt),
});
export async function adminRegistryRoutes(app, { kernel, validators }) {
    const TOKENS = "/registry/pods/:podId/agents/:agentName/runtime-tokens";
    app.post("/registry/publish", { preValidation: checks({ body: validators.adminModel("PublishRequest") }) }, async (req) => wireRegistry(await kernel.registry.publish(req.user, req.body)));
    app.get("/registry/agents", async () => ({ agents: (await kernel.registry.list()).map(wireRegistry) }));
    app.post("/registry/install", { preValidation: checks({ body: validators.adminModel("InstallRequest") }) }, async (req, reply) => reply.code(201).send(wireInstallation(await kernel.registry.install(req.user, req.body))));
    app.post(TOKENS, {
        preValidation: checks({ body: validators.adminModel("IssueRuntimeTokenRequest"), optionalBody: true }),
    }, async (req, reply) => {
        const { podId, agentName } = req.params;
        const { token, record, installation } = await kernel.registry.issueToken(req.user, podId, agentName, req.body);
        return reply.code(201).send({
            id: record.id,
            token,
            label: record.label,
            agentName: installation.agentName,
            instanceId: installation.instanceId,
            podId,
            installationId: installation.id,
            issuedBy: record.issuedBy,
            createdAt: iso(record.createdAt),
        });
    });
    app.get(TOKENS, {
        preValidation: checks({
            query: validators.query("admin", "get", "/api/registry/pods/{podId}/agents/{agentName}/runtime-tokens"),
        }),
    }, async (req) => {
        const { podId, agentName } = req.params;
        const { instanceId } = req.query;
        return {
            tokens: (await kernel.registry.listTokens(req.user, podId, agentName, instanceId)).map(wireRuntimeToken),
        };
    });
    app.delete(`${TOKENS}/:tokenId`, async (req) => {
        const { podId, agentName, tokenId } = req.params;
        await kernel.registry.revokeToken(req.user, podId, agentName, tokenId);
        return { ok: true };
    });
    app.delete("/registry/pods/:podId/agents/:agentName", {
        preValidation: checks({
            query: validators.query("admin", "delete", "/api/registry/pods/{podId}/agents/{agentName}"),
        }),
    }, async (req) => {
        const { podId, agentName } = req.params;
        const { instanceId } = req.query;
        return { ok: true, ...(await kernel.registry.uninstall(req.user, podId, agentName, instanceId)) };
    });
}
//# sourceMappingURL=admin-registry.js.map