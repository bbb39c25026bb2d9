/**
 * Admin routes for the registry: publish, list, install, update an installation (its double-texting
 * policy), runtime tokens (issue once / list / revoke), uninstall. A manifest over `limits.maxManifestBytes` is refused here, before its schema is checked: any
 * user may publish, and thirty 1 MB manifests made the listing 28.6 MiB and stalled `/healthz` for ~1 s.
 */

import type { FastifyInstance, FastifyRequest } from "fastify";
import { iso } from "../../clock.js";
import { fail } from "../../errors/registry.js";
import { wireInstallation, wireRuntimeToken } from "../../services/registry.js";
import { userOf } from "../callers.js";
import { checks } from "../request-checks.js";
import type { AdminRoute } from "../route-types.js";
import type { RouteDeps } from "../types.js";

const wireRegistry = (a: {
  name: string;
  manifest: unknown;
  publishedBy: string;
  createdAt: number;
  updatedAt: number;
}) => ({
  name: a.name,
  manifest: a.manifest,
  publishedBy: a.publishedBy,
  createdAt: iso(a.createdAt),
  updatedAt: iso(a.updatedAt),
});

/** 413 manifest_too_large when the manifest's JSON (the publish body, as stored) is over `max` bytes. */
const manifestFits = (max: number) => (req: FastifyRequest) => {
  const size = Buffer.byteLength(JSON.stringify(req.body ?? null), "utf8");
  if (size > max) fail("manifest_too_large", undefined, { max, size });
};

export async function adminRegistryRoutes(
  app: FastifyInstance,
  { kernel, validators, rateLimits }: RouteDeps,
) {
  const TOKENS = "/registry/pods/:podId/agents/:agentName/runtime-tokens";

  app.post<AdminRoute<"/registry/publish", "post">>(
    "/registry/publish",
    {
      preValidation: checks({
        body: validators.adminModel("PublishRequest"),
        beforeBody: manifestFits(kernel.config.limits.maxManifestBytes),
      }),
    },
    async (req) => wireRegistry(await kernel.registry.publish(userOf(req), req.body)),
  );

  app.get("/registry/agents", async () => ({ agents: (await kernel.registry.list()).map(wireRegistry) }));

  app.post<AdminRoute<"/registry/install", "post">>(
    "/registry/install",
    { preValidation: checks({ body: validators.adminModel("InstallRequest") }) },
    async (req, reply) =>
      reply.code(201).send(wireInstallation(await kernel.registry.install(userOf(req), req.body))),
  );

  app.post<AdminRoute<"/registry/pods/{podId}/agents/{agentName}/runtime-tokens", "post">>(
    TOKENS,
    {
      // One issuance budget per human, shared with join codes (rate-limits.ts).
      onRequest: rateLimits.issuance,
      preValidation: checks({ body: validators.adminModel("IssueRuntimeTokenRequest"), optionalBody: true }),
    },
    async (req, reply) => {
      const { podId, agentName } = req.params;
      const { token, record, installation } = await kernel.registry.issueToken(
        userOf(req),
        podId,
        agentName,
        req.body,
      );
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
    },
  );

  app.get<AdminRoute<"/registry/pods/{podId}/agents/{agentName}/runtime-tokens", "get">>(
    TOKENS,
    {
      preValidation: checks({
        query: validators.query(
          "admin",
          "get",
          "/api/registry/pods/{podId}/agents/{agentName}/runtime-tokens",
        ),
      }),
    },
    async (req) => {
      const { podId, agentName } = req.params;
      const { instanceId } = req.query;
      return {
        tokens: (await kernel.registry.listTokens(userOf(req), podId, agentName, instanceId)).map(
          wireRuntimeToken,
        ),
      };
    },
  );

  app.delete<AdminRoute<"/registry/pods/{podId}/agents/{agentName}/runtime-tokens/{tokenId}", "delete">>(
    `${TOKENS}/:tokenId`,
    async (req) => {
      const { podId, agentName, tokenId } = req.params;
      await kernel.registry.revokeToken(userOf(req), podId, agentName, tokenId);
      return { ok: true };
    },
  );

  app.patch<AdminRoute<"/registry/pods/{podId}/agents/{agentName}", "patch">>(
    "/registry/pods/:podId/agents/:agentName",
    {
      preValidation: checks({
        query: validators.query("admin", "patch", "/api/registry/pods/{podId}/agents/{agentName}"),
        body: validators.adminModel("UpdateInstallationRequest"),
      }),
    },
    async (req) => {
      const { podId, agentName } = req.params;
      const { instanceId } = req.query;
      return wireInstallation(
        await kernel.registry.updateInstallation(userOf(req), podId, agentName, req.body, instanceId),
      );
    },
  );

  app.delete<AdminRoute<"/registry/pods/{podId}/agents/{agentName}", "delete">>(
    "/registry/pods/:podId/agents/:agentName",
    {
      preValidation: checks({
        query: validators.query("admin", "delete", "/api/registry/pods/{podId}/agents/{agentName}"),
      }),
    },
    async (req) => {
      const { podId, agentName } = req.params;
      const { instanceId } = req.query;
      return { ok: true, ...(await kernel.registry.uninstall(userOf(req), podId, agentName, instanceId)) };
    },
  );
}
