/**
 * The optional CAP conveniences that are not events, messages or memory: GET /info and POST /decisions.
 */
import { FEATURES } from "@commonly/cap-spec/constants";
import { checks } from "../request-checks.js";
/** What `/info` advertises: every optional feature of CAP v1 (spec enum Feature) but `info`, the route itself. */
const ADVERTISED_FEATURES = FEATURES.filter((f) => f !== "info");
export async function capExtraRoutes(app, { kernel, validators, profile }) {
    const c = kernel.config;
    const info = {
        protocol: "cap",
        version: "1",
        leaseSeconds: Math.max(1, Math.ceil(c.leaseSeconds)),
        maxAttempts: c.maxAttempts,
        maxLimit: c.maxLimit,
        maxWaitSeconds: c.maxWaitSeconds,
        maxMessageBytes: c.maxMessageBytes,
        features: ADVERTISED_FEATURES,
        // Only a non-default profile names itself: under `cap` the answer is CAP v1's, unchanged.
        ...(profile.name !== "cap" ? { profile: profile.name } : {}),
    };
    app.get("/info", async () => info);
    app.post("/decisions", { preValidation: checks({ body: validators.capModel("DecisionRequest") }) }, async (req, reply) => reply.code(201).send(await kernel.decisions.ask(req.agent, req.body)));
}
//# sourceMappingURL=cap-extras.js.map