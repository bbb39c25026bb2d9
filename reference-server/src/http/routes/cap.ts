/**
 * The CAP v1 surface under /api/agents/runtime. Authentication runs in onRequest — before the body is read
 * or anything validated (CAP-ERR-7) — and takes the identity from the token alone (CAP-AUTH-6). Which
 * header carries the token is the wire profile's call: `Authorization: Bearer` only under `cap`
 * (CAP-AUTH-1), also the production kernel's `x-commonly-agent-token` under `production`.
 */
import type { FastifyInstance } from "fastify";
import type { RouteDeps } from "../types.js";
import { capEventRoutes } from "./cap-events.js";
import { capExtraRoutes } from "./cap-extras.js";
import { capMemoryRoutes } from "./cap-memory.js";
import { capMessageRoutes } from "./cap-messages.js";

export async function capRoutes(app: FastifyInstance, deps: RouteDeps) {
  // A callback hook, not an async one: a cached token answers without a promise, on every CAP request.
  app.addHook("onRequest", (req, _reply, done) => {
    let caller: ReturnType<typeof deps.kernel.tokens.authenticateAgent>;
    try {
      caller = deps.kernel.tokens.authenticateAgent(deps.profile.agentAuthorization(req.headers));
    } catch (err) {
      done(err as Error);
      return;
    }
    if (!(caller instanceof Promise)) {
      req.agent = caller;
      done();
      return;
    }
    caller.then((agent) => {
      req.agent = agent;
      done();
    }, done);
  });
  await capEventRoutes(app, deps);
  await capMessageRoutes(app, deps);
  await capMemoryRoutes(app, deps);
  await capExtraRoutes(app, deps);
}
