/**
 * The caller a plugin's authentication hook put on a request, as its handlers read it: the CAP plugin's
 * onRequest (routes/cap.ts) sets `agent` on every request it lets through and the admin plugin's
 * (routes/admin.ts) sets `user`, so inside those plugins the caller is there and these return it typed
 * as present, where a non-null assertion would only have claimed it.
 * Must never let a request without its caller through: outside its plugin (a wiring fault) it answers
 * 401 auth_required, as the hook would have.
 */
import type { FastifyRequest } from "fastify";
import { fail } from "../errors/registry.js";
import type { AgentCaller, UserCaller } from "../services/deps.js";

/** The agent of a request under the CAP routes. */
export function agentOf(req: FastifyRequest): AgentCaller {
  return req.agent ?? fail("auth_required");
}

/** The human of a request under the authenticated admin routes. */
export function userOf(req: FastifyRequest): UserCaller {
  return req.user ?? fail("auth_required");
}
