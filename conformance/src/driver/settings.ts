/**
 * Settings of one `cap-conformance driver` run: flags win over `CAP_CONFORMANCE_*` variables (the same
 * names the kernel suite reads, plus DRIVER_COMMAND). Exactly one of `--command` and `--wait`. The lease
 * is the in-process kernel's, short by default so redelivery scenarios finish in about a second.
 */
import { ConfigError } from "../config/errors.js";
import {
  flagsFromEnv,
  type LevelFilter,
  parseReport,
  positive,
  type ReportTarget,
} from "../config/settings.js";
import { type Feature, features } from "../features.js";

export interface DriverSettings {
  command?: string;
  wait: boolean;
  only: string[];
  skip: string[];
  level: LevelFilter;
  strict: boolean;
  leaseSeconds: number;
  maxAttempts: number;
  timeScale: number;
  /** How long the driver may take to make its first request (under --wait: for the user to start it). */
  startupSeconds: number;
  baseline?: string;
  reports: ReportTarget[];
  trace: boolean;
  requirements?: string;
  /** Optional features the driver implements (`--claim`): their scenarios run, and bind it. */
  claims: Feature[];
}

export interface DriverFlags {
  command?: string;
  wait?: boolean;
  only?: string[];
  skip?: string[];
  level?: string;
  strict?: boolean;
  leaseSeconds?: string;
  maxAttempts?: string;
  timeScale?: string;
  startupTimeout?: string;
  baseline?: string;
  report?: string[];
  trace?: boolean;
  requirements?: string;
  claim?: string[];
}

const nonEmpty = (a: string[] | undefined, b: string[] | undefined) => (a && a.length > 0 ? a : (b ?? []));

export function resolveDriverSettings(
  flags: DriverFlags,
  env: NodeJS.ProcessEnv = process.env,
): DriverSettings {
  const e = flagsFromEnv(env);
  const command = flags.command ?? (env.CAP_CONFORMANCE_DRIVER_COMMAND || undefined);
  const wait = flags.wait ?? false;
  if (command && wait) throw new ConfigError("pass either --command or --wait, not both");
  if (!command && !wait)
    throw new ConfigError("pass --command '<shell command that starts your driver>' or --wait");
  const level = flags.level ?? e.level ?? "should";
  if (level !== "must" && level !== "should") throw new ConfigError(`--level must be "must" or "should"`);
  const timeScale = positive("--time-scale", flags.timeScale ?? e.timeScale, false) ?? 1;
  const s: DriverSettings = {
    wait,
    only: nonEmpty(flags.only, e.only),
    skip: nonEmpty(flags.skip, e.skip),
    level,
    strict: flags.strict ?? e.strict ?? false,
    leaseSeconds: positive("--lease-seconds", flags.leaseSeconds ?? e.leaseSeconds, false) ?? 1,
    maxAttempts: positive("--max-attempts", flags.maxAttempts ?? e.maxAttempts, true) ?? 5,
    timeScale,
    startupSeconds:
      positive("--startup-timeout", flags.startupTimeout, false) ?? (wait ? 300 : 15 * timeScale),
    reports: nonEmpty(flags.report, e.report).map(parseReport),
    trace: flags.trace ?? e.trace ?? false,
    claims: [...new Set(nonEmpty(flags.claim, e.claim))] as Feature[],
  };
  for (const c of s.claims)
    if (!features.includes(c))
      throw new ConfigError(`unknown feature ${JSON.stringify(c)}; known: ${features.join(", ")}`);
  if (s.maxAttempts < 3)
    throw new ConfigError(
      "--max-attempts must be at least 3: the redelivery scenarios deliver an event twice",
    );
  if (command) s.command = command;
  const baseline = flags.baseline ?? e.baseline;
  if (baseline) s.baseline = baseline;
  const requirements = flags.requirements ?? e.requirements;
  if (requirements) s.requirements = requirements;
  return s;
}
