/**
 * The CAP v1 surface under /api/agents/runtime. Authentication runs in onRequest — before the body is read
 * or anything validated (CAP-ERR-7) — and takes the identity from the token alone (CAP-AUTH-6). The
 * `x-commonly-agent-token` header is accepted when no Authorization header is present (production drivers).
 */
import type { FastifyInstance } from "fastify";
import type { RouteDeps } from "../types.js";
import { capEventRoutes } from "./cap-events.js";
import { capExtraRoutes } from "./cap-extras.js";
import { capMemoryRoutes } from "./cap-memory.js";
import { capMessageRoutes } from "./cap-messages.js";

export const CAP_BASE = "/api/agents/runtime";

export async function capRoutes(app: FastifyInstance, deps: RouteDeps) {
  app.addHook("onRequest", async (req) => {
    const legacy = req.headers["x-commonly-agent-token"];
    req.agent = await deps.kernel.tokens.authenticateAgent(
      req.headers.authorization,
      Array.isArray(legacy) ? legacy[0] : legacy,
    );
  });
  await capEventRoutes(app, deps);
  await capMessageRoutes(app, deps);
  await capMemoryRoutes(app, deps);
  await capExtraRoutes(app, deps);
}
