import { wireInstallation } from "../../services/registry.js";
import { checks } from "../request-checks.js";
export async function joinRoutes(app, { kernel, validators }) {
    app.post("/joins/redeem", { preValidation: checks({ body: validators.adminModel("RedeemJoinCodeRequest") }) }, async (req, reply) => {
        const r = await kernel.joins.redeem(req.body);
        return reply
            .code(201)
            .send({ token: r.token, tokenId: r.tokenId, installation: wireInstallation(r.installation) });
    });
}
//# sourceMappingURL=joins.js.map