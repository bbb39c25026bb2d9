/**
 * POST /api/joins/redeem — unauthenticated: the one-time join code is the credential. Answers the new
 * installation and its runtime token, once.
 */
import type { FastifyInstance } from "fastify";
import { wireInstallation } from "../../services/registry.js";
import { checks } from "../request-checks.js";
import type { AdminRoute } from "../route-types.js";
import type { RouteDeps } from "../types.js";

export async function joinRoutes(app: FastifyInstance, { kernel, validators, rateLimits }: RouteDeps) {
  app.post<AdminRoute<"/joins/redeem", "post">>(
    "/joins/redeem",
    {
      // Every attempt counts, per client address, before the body is read (rate-limits.ts).
      onRequest: rateLimits.joinRedemption,
      preValidation: checks({ body: validators.adminModel("RedeemJoinCodeRequest") }),
    },
    async (req, reply) => {
      const r = await kernel.joins.redeem(req.body);
      return reply
        .code(201)
        .send({ token: r.token, tokenId: r.tokenId, installation: wireInstallation(r.installation) });
    },
  );
}
