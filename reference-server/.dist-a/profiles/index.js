/**
 * Wire profiles: the dialect the CAP routes speak, chosen once per kernel process (`--profile`,
 * `CAP_PROFILE`). `cap` is CAP v1 exactly; `production` speaks, where a deployed driver can tell, the
 * production kernel's dialect as docs/guides/mocking-production.md lists it. A profile only maps at the
 * HTTP edge — credentials in, events and answers out. It must never change what the services decide or
 * what the store holds: both profiles run the same rules (leases, 404s, hashed tokens, pull-only).
 */
import { capProfile } from "./cap.js";
import { productionProfile } from "./production.js";
export { isProfileName, PROFILE_NAMES } from "./names.js";
const PROFILES = { cap: capProfile, production: productionProfile };
export function wireProfile(name = "cap") {
    return PROFILES[name];
}
//# sourceMappingURL=index.js.map