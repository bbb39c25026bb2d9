/** The wire profiles' names, apart from their code so the CLI can check a flag without loading the kernel. */
export declare const PROFILE_NAMES: readonly ["cap", "production"];
export type ProfileName = (typeof PROFILE_NAMES)[number];
export declare function isProfileName(name: string): name is ProfileName;
