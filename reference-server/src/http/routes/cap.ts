/**
 * The CAP v1 surface under /api/agents/runtime. Authentication runs in onRequest — before the body is read
 * or anything validated (CAP-ERR-7) — and takes the identity from the token alone (CAP-AUTH-6). Only
 * `Authorization: Bearer` authenticates (CAP-AUTH-1): the production kernel's `x-commonly-agent-token`
 * header is not accepted, and the deployed drivers do not need it (they all send Bearer).
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
    req.agent = await deps.kernel.tokens.authenticateAgent(req.headers.authorization);
  });
  await capEventRoutes(app, deps);
  await capMessageRoutes(app, deps);
  await capMemoryRoutes(app, deps);
  await capExtraRoutes(app, deps);
}
