/**
 * The CAP v1 surface under /api/agents/runtime. Authentication runs in onRequest — before the body is read
 * or anything validated (CAP-ERR-7) — and takes the identity from the token alone (CAP-AUTH-6). Which
 * header carries the token is the wire profile's call: `Authorization: Bearer` only under `cap`
 * (CAP-AUTH-1), also the production kernel's `x-commonly-agent-token` under `production`.
 */
import type { Socket } from "node:net";
import type { FastifyInstance } from "fastify";
import type { RouteDeps } from "../types.js";
import { capEventRoutes } from "./cap-events.js";
import { capExtraRoutes } from "./cap-extras.js";
import { capMemoryRoutes } from "./cap-memory.js";
import { capMessageRoutes } from "./cap-messages.js";

export async function capRoutes(app: FastifyInstance, deps: RouteDeps) {
  const { tokens } = deps.kernel;
  // A callback hook, not an async one: a cached token answers without a promise, on every CAP request.
  app.addHook("onRequest", (req, _reply, done) => {
    let caller: ReturnType<typeof tokens.agentByHash>;
    try {
      caller = tokens.agentByHash(
        connectionTokenHash(
          req.raw.socket,
          deps.profile.agentAuthorization(req.headers),
          tokens.runtimeTokenHash,
        ),
      );
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

const TOKEN_HASH = Symbol("cap.tokenHash");
type HashedSocket = Socket & { [TOKEN_HASH]?: { header: string; hash: string } };

/**
 * The token hash of a request's Authorization value, computed once per connection: a driver sends the
 * same token on every request of its keep-alive connection, and the format check with the SHA-256 showed
 * in the cost of every request. Kept on the socket, so it lives
 * and dies with the connection, holding what the connection's own request headers held; a different
 * value on the same connection is hashed (and checked) again. Revocation is unaffected: the hash still
 * goes through the token cache and the store on every request.
 */
function connectionTokenHash(
  socket: HashedSocket | null,
  header: string | undefined,
  hashOf: (header: string | undefined) => string,
): string {
  const memo = socket?.[TOKEN_HASH];
  if (memo !== undefined && header !== undefined && memo.header === header) return memo.hash;
  const hash = hashOf(header);
  if (socket && header !== undefined) socket[TOKEN_HASH] = { header, hash };
  return hash;
}
