import { capEventRoutes } from "./cap-events.js";
import { capExtraRoutes } from "./cap-extras.js";
import { capMemoryRoutes } from "./cap-memory.js";
import { capMessageRoutes } from "./cap-messages.js";
export async function capRoutes(app, deps) {
    const { tokens } = deps.kernel;
    // A callback hook, not an async one: a cached token answers without a promise, on every CAP request.
    app.addHook("onRequest", (req, _reply, done) => {
        let caller;
        try {
            caller = tokens.agentByHash(connectionTokenHash(req.raw.socket, deps.profile.agentAuthorization(req.headers), tokens.runtimeTokenHash));
        }
        catch (err) {
            done(err);
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
/**
 * The token hash of a request's Authorization value, computed once per connection: a driver sends the
 * same token on every request of its keep-alive connection, and the format check with the SHA-256 cost
 * ~2.5 µs of a request (A/B on the one-ack drain, bench/ab-drain.mjs). Kept on the socket, so it lives
 * and dies with the connection, holding what the connection's own request headers held; a different
 * value on the same connection is hashed (and checked) again. Revocation is unaffected: the hash still
 * goes through the token cache and the store on every request.
 */
function connectionTokenHash(socket, header, hashOf) {
    const memo = socket?.[TOKEN_HASH];
    if (memo !== undefined && header !== undefined && memo.header === header)
        return memo.hash;
    const hash = hashOf(header);
    if (socket && header !== undefined)
        socket[TOKEN_HASH] = { header, hash };
    return hash;
}
//# sourceMappingURL=cap.js.map