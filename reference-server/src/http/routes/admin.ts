/**
 * The kernel's admin surface (spec/src/admin → spec/generated/kernel-admin.openapi.yaml), under /api.
 * Every route but join-code redemption authenticates a user API token in onRequest, before the body is
 * read; roles (kernel admin, pod admin, member) are checked by the services.
 */
import type { FastifyInstance } from "fastify";
import type { RouteDeps } from "../types.js";
import { adminOperatorRoutes } from "./admin-operator.js";
import { adminPodRoutes } from "./admin-pods.js";
import { adminRegistryRoutes } from "./admin-registry.js";
import { adminUserRoutes } from "./admin-users.js";
import { joinRoutes } from "./joins.js";

export async function adminRoutes(app: FastifyInstance, deps: RouteDeps) {
  await app.register(async (authed) => {
    authed.addHook("onRequest", async (req) => {
      req.user = await deps.kernel.tokens.authenticateUser(req.headers.authorization);
    });
    await adminUserRoutes(authed, deps);
    await adminPodRoutes(authed, deps);
    await adminRegistryRoutes(authed, deps);
    await adminOperatorRoutes(authed, deps);
  });
  await app.register(async (open) => joinRoutes(open, deps));
}
