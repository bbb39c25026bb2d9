/**
 * Per-route request checks run in preValidation (after auth and body parsing, before the handler), in
 * CAP's precedence order: query, then path params, then body. Unknown fields are ignored wherever the
 * schema leaves objects open (CAP routes); only closed schemas (decisions, memory sections) reject them.
 */
import { check } from "./validation.js";
// A callback hook, not an async one: it runs on every request of its route, and an async hook costs a
// promise each.
export function checks(c) {
    return (req, _reply, done) => {
        try {
            if (c.query)
                check(c.query, req.query, "query");
            if (c.body) {
                if (req.body === undefined && c.optionalBody)
                    req.body = {};
                c.beforeBody?.(req);
                check(c.body, req.body, "body");
            }
        }
        catch (err) {
            done(err);
            return;
        }
        done();
    };
}
//# sourceMappingURL=request-checks.js.map