/** The wire profiles' names, apart from their code so the CLI can check a flag without loading the kernel. */
export const PROFILE_NAMES = ["cap", "production"];
export function isProfileName(name) {
    return PROFILE_NAMES.includes(name);
}
//# sourceMappingURL=names.js.map