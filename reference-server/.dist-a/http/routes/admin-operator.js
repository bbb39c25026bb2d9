import { checks } from "../request-checks.js";
export async function adminOperatorRoutes(app, { kernel, validators }) {
    app.post("/admin/events", { preValidation: checks({ body: validators.adminModel("EmitEventRequest") }) }, async (req, reply) => reply.code(201).send(await kernel.operator.emit(req.user, req.body)));
    app.get("/admin/dead-letters", { preValidation: checks({ query: validators.query("admin", "get", "/api/admin/dead-letters") }) }, async (req) => ({ events: await kernel.operator.deadLetters(req.user, req.query) }));
    app.post("/admin/dead-letters/:eventId/requeue", async (req) => kernel.operator.requeue(req.user, req.params.eventId));
    app.get("/admin/pods/:podId/queue", { preValidation: checks({ query: validators.query("admin", "get", "/api/admin/pods/{podId}/queue") }) }, async (req) => kernel.operator.queue(req.user, req.params.podId, req.query.limit));
}
//# sourceMappingURL=admin-operator.js.map