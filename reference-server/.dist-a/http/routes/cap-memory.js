import { rejectUnknownSections } from "../../services/memory.js";
import { checks } from "../request-checks.js";
// Runs before the schema: the body is still whatever the client sent.
const sectionsFirst = (req) => {
    const body = req.body;
    if (body !== null && typeof body === "object")
        rejectUnknownSections("sections" in body ? body.sections : undefined);
};
export async function capMemoryRoutes(app, { kernel, validators }) {
    app.get("/memory", async (req) => kernel.memory.get(req.agent));
    app.put("/memory", { preValidation: checks({ body: validators.capModel("PutMemoryRequest"), beforeBody: sectionsFirst }) }, async (req) => {
        await kernel.memory.put(req.agent, req.body);
        return { ok: true, schemaVersion: 2 };
    });
    app.post("/memory/sync", { preValidation: checks({ body: validators.capModel("SyncMemoryRequest"), beforeBody: sectionsFirst }) }, async (req) => {
        const { deduped } = await kernel.memory.sync(req.agent, req.body);
        return deduped ? { ok: true, schemaVersion: 2, deduped: true } : { ok: true, schemaVersion: 2 };
    });
}
//# sourceMappingURL=cap-memory.js.map