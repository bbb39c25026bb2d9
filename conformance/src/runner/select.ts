/**
 * Which checks apply to this run: `--only`/`--skip` patterns (a check id, family or requirement id, `*`
 * as a wildcard) and `--level` select them — a check they leave out is "not selected", counted but never
 * listed; feature gates decide whether a selected check applies — a check gated by a feature runs when
 * `/info` advertises the feature or the configuration claims it; otherwise it is skipped with the reason,
 * never failed, and never makes the run incomplete.
 */
import type { Check } from "../check.js";
import type { LevelFilter } from "../config/settings.js";
import type { Feature } from "../features.js";
import { type Manifest, strongest } from "../requirements.js";

export function globToRegExp(glob: string): RegExp {
  const body = glob.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*");
  return new RegExp(`^${body}$`);
}

export function matches(check: Check, pattern: string): boolean {
  const re = globToRegExp(pattern);
  return re.test(check.id) || re.test(check.family) || check.verifies.some((id) => re.test(id));
}

export interface Selection {
  check: Check;
  /** Why the check does not run; undefined when it runs. */
  skip?: string;
  /** The user's selection (`--only`, `--skip`, `--level`) left it out, as opposed to a feature gate. */
  notSelected?: true;
}

export interface SelectOptions {
  only: readonly string[];
  skip: readonly string[];
  level: LevelFilter;
  features: ReadonlySet<Feature>;
}

export function select(checks: readonly Check[], manifest: Manifest, o: SelectOptions): Selection[] {
  return checks.map((check) => {
    if (o.only.length > 0 && !o.only.some((p) => matches(check, p)))
      return { check, skip: `not selected by --only ${o.only.join(" ")}`, notSelected: true };
    const skipped = o.skip.find((p) => matches(check, p));
    if (skipped) return { check, skip: `excluded by --skip ${skipped}`, notSelected: true };
    const reqs = check.verifies.map((id) => manifest.byId.get(id)).filter((r) => r !== undefined);
    const level = strongest(reqs);
    if (o.level === "must" && level === "SHOULD")
      return { check, skip: "verifies only SHOULD requirements, below --level must", notSelected: true };
    if (check.feature && !o.features.has(check.feature))
      return {
        check,
        skip: `the kernel does not advertise "${check.feature}" in /info features and the configuration does not claim it`,
      };
    return { check };
  });
}
