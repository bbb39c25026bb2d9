/**
 * Wire profiles: the dialect the CAP routes speak, chosen once per kernel process (`--profile`,
 * `CAP_PROFILE`). `cap` is CAP v1 exactly; `production` speaks, where a deployed driver can tell, the
 * production kernel's dialect as docs/guides/mocking-production.md lists it. A profile only maps at the
 * HTTP edge — credentials in, events and answers out. It must never change what the services decide or
 * what the store holds: both profiles run the same rules (leases, 404s, hashed tokens, pull-only).
 */
import { capProfile } from "./cap.js";
import type { ProfileName } from "./names.js";
import { productionProfile } from "./production.js";
import type { WireProfile } from "./wire-profile.js";

export { isProfileName, PROFILE_NAMES, type ProfileName } from "./names.js";
export type { PostedMessage, WireProfile } from "./wire-profile.js";

const PROFILES: Record<ProfileName, WireProfile> = { cap: capProfile, production: productionProfile };

export function wireProfile(name: ProfileName = "cap"): WireProfile {
  return PROFILES[name];
}
