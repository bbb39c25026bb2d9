/** The wire profiles' names, apart from their code so the CLI can check a flag without loading the kernel. */
export const PROFILE_NAMES = ["cap", "production"] as const;
export type ProfileName = (typeof PROFILE_NAMES)[number];

export function isProfileName(name: string): name is ProfileName {
  return (PROFILE_NAMES as readonly string[]).includes(name);
}
