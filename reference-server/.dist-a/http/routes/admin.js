import { adminOperatorRoutes } from "./admin-operator.js";
import { adminPodRoutes } from "./admin-pods.js";
import { adminRegistryRoutes } from "./admin-registry.js";
import { adminUserRoutes } from "./admin-users.js";
import { joinRoutes } from "./joins.js";
export async function adminRoutes(app, deps) {
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
//# sourceMappingURL=admin.js.map