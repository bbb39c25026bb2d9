import type { WireProfile } from "./wire-profile.js";
export declare const capProfile: WireProfile;
