import type { ProfileName } from "./names.js";
import type { WireProfile } from "./wire-profile.js";
export { isProfileName, PROFILE_NAMES, type ProfileName } from "./names.js";
export type { PostedMessage, WireProfile } from "./wire-profile.js";
export declare function wireProfile(name?: ProfileName): WireProfile;
