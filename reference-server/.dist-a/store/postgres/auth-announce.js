/**
 * Auth-change announcements across PostgreSQL replicas, so a token cache (services/token-cache.ts) never
 * outlives a revocation: "revoked" must hold on the next request, on every replica.
 *
 * The revoking replica NOTIFYs `!auth:<nonce>` in the revoking transaction. Every other replica's LISTEN
 * connection drops its caches on receipt and answers `!ack:<nonce>`. The revoking replica then waits —
 * before its op resolves, so before the revoking HTTP request answers — until every replica listening on
 * this schema has acked (the listeners are found by their application_name in pg_stat_activity), or until
 * AUTH_CACHE_MAX_AGE_MS has passed, after which every entry cached before the commit has expired anyway.
 * A replica whose LISTEN connection is down does not cache at all (authCacheSafe), and one that listens
 * again drops its caches first (onReset), so a missed announcement is never trusted.
 *
 * Must never: resolve an announcement before the other replicas dropped their caches or the maximum age
 * has passed, or fail a revocation because an ack is missing (waiting is bounded).
 */
import { randomBytes } from "node:crypto";
import { AUTH_CACHE_MAX_AGE_MS } from "../contract.js";
const AUTH = "!auth:";
const ACK = "!ack:";
/** The application_name of a store's LISTEN connection: its schema and origin, found by revoking replicas. */
export function listenerName(schema, origin) {
    return `cap-listen:${schema}:${origin}`;
}
export class AuthAnnouncer {
    pool;
    channel;
    schema;
    origin;
    dropLocal;
    waiting = new Map();
    constructor(pool, channel, schema, origin, 
    /** Drops this replica's caches (the store's onAuthChanged listeners). */
    dropLocal) {
        this.pool = pool;
        this.channel = channel;
        this.schema = schema;
        this.origin = origin;
        this.dropLocal = dropLocal;
    }
    /** A fresh announcement: its nonce and the NOTIFY payload to send inside the revoking transaction. */
    next() {
        const nonce = randomBytes(8).toString("hex");
        return { nonce, payload: `${this.origin}${AUTH}${nonce}` };
    }
    /** Called with each "!" message of another replica (listen.ts onControl). */
    onControl(message, from) {
        if (message.startsWith(AUTH)) {
            this.dropLocal();
            const payload = `${this.origin}${ACK}${message.slice(AUTH.length)}`;
            this.pool.query("SELECT pg_notify($1, $2)", [this.channel, payload]).catch(() => undefined);
        }
        else if (message.startsWith(ACK)) {
            const w = this.waiting.get(message.slice(ACK.length));
            if (w) {
                w.from.add(from);
                w.done();
            }
        }
    }
    /** After the commit: resolves once every other listening replica acked `nonce`, or at the maximum age. */
    async settled(nonce) {
        const from = new Set();
        let wake = () => { };
        this.waiting.set(nonce, { from, done: () => wake() });
        const deadline = performance.now() + AUTH_CACHE_MAX_AGE_MS;
        try {
            const prefix = `cap-listen:${this.schema}:`;
            const rows = (await this.pool.query(`SELECT application_name AS name FROM pg_stat_activity
            WHERE datname = current_database() AND left(application_name, $2) = $1`, [prefix, prefix.length])).rows;
            const others = new Set(rows.map((r) => r.name.slice(prefix.length)).filter((o) => o !== this.origin));
            while ([...others].some((o) => !from.has(o))) {
                const left = deadline - performance.now();
                if (left <= 0)
                    return;
                await new Promise((resolve) => {
                    const t = setTimeout(resolve, left);
                    wake = () => {
                        clearTimeout(t);
                        resolve();
                    };
                });
            }
        }
        catch {
            // No list of replicas: wait out the maximum age instead, which is just as safe.
            const left = deadline - performance.now();
            if (left > 0)
                await new Promise((r) => setTimeout(r, left));
        }
        finally {
            this.waiting.delete(nonce);
        }
    }
}
//# sourceMappingURL=auth-announce.js.map