import { fail, KernelError } from "../../errors/registry.js";
export async function opsRoutes(app, deps) {
    app.get("/healthz", async () => ({ ok: true }));
    app.get("/readyz", async () => {
        if (deps.isClosing())
            fail("unavailable", "The kernel is shutting down.");
        try {
            await deps.kernel.health.ping();
        }
        catch {
            throw new KernelError("store_unavailable", undefined, undefined, { "Retry-After": "1" });
        }
        return { ok: true, store: deps.kernel.health.storeKind, profile: deps.profile.name };
    });
    app.get("/metrics", async (_req, reply) => {
        reply.type(deps.metrics.registry.contentType);
        return deps.metrics.text();
    });
}
//# sourceMappingURL=ops.js.map