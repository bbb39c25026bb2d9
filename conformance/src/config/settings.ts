/**
 * Settings of one run, resolved from three layers: command-line flags win over `CAP_CONFORMANCE_*`
 * environment variables, which win over the fixture file. Everything a run does is decided here, once;
 * no other module reads `process.env` or `process.argv`.
 */
import { readFile } from "node:fs/promises";
import { type Feature, features } from "../features.js";
import { ConfigError } from "./errors.js";
import { type Fixture, parseFixture, type StoreOutageHook } from "./fixture.js";

export const reportFormats = ["json", "junit", "markdown", "html"] as const;
export type ReportFormat = (typeof reportFormats)[number];
export type LevelFilter = "must" | "should";

export interface ReportTarget {
  format: ReportFormat;
  path: string;
}

export interface Settings {
  fixture: Fixture;
  urls: string[];
  only: string[];
  skip: string[];
  level: LevelFilter;
  strict: boolean;
  leaseSeconds?: number;
  maxAttempts?: number;
  timeScale: number;
  baseline?: string;
  reports: ReportTarget[];
  trace: boolean;
  triggerCmd?: string;
  /** The store-outage hook (flags > env > fixture); without it the outage checks are skipped. */
  storeOutage?: StoreOutageHook;
  claims: Feature[];
  canaryHost: string;
  requirements?: string;
}

/** Flags as commander hands them over (every field optional; repeatable ones are arrays). */
export interface Flags {
  fixture?: string;
  url?: string[];
  only?: string[];
  skip?: string[];
  level?: string;
  strict?: boolean;
  leaseSeconds?: string;
  maxAttempts?: string;
  timeScale?: string;
  baseline?: string;
  report?: string[];
  trace?: boolean;
  triggerCmd?: string;
  storeDownCmd?: string;
  storeUpCmd?: string;
  claim?: string[];
  canaryHost?: string;
  requirements?: string;
}

const list = (v: string | undefined) =>
  v
    ?.split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);
const bool = (v: string | undefined) => (v === undefined ? undefined : /^(1|true|yes|on)$/i.test(v));

/** Read `CAP_CONFORMANCE_*` into the same shape as flags. */
export function flagsFromEnv(env: NodeJS.ProcessEnv): Flags {
  const e = (k: string) => {
    const v = env[`CAP_CONFORMANCE_${k}`];
    return v === undefined || v === "" ? undefined : v;
  };
  return {
    fixture: e("FIXTURE"),
    url: list(e("URL") ?? e("URLS")),
    only: list(e("ONLY")),
    skip: list(e("SKIP")),
    level: e("LEVEL"),
    strict: bool(e("STRICT")),
    leaseSeconds: e("LEASE_SECONDS"),
    maxAttempts: e("MAX_ATTEMPTS"),
    timeScale: e("TIME_SCALE"),
    baseline: e("BASELINE"),
    report: list(e("REPORT")),
    trace: bool(e("TRACE")),
    triggerCmd: e("TRIGGER_CMD"),
    storeDownCmd: e("STORE_DOWN_CMD"),
    storeUpCmd: e("STORE_UP_CMD"),
    claim: list(e("CLAIM") ?? e("FEATURES")),
    canaryHost: e("CANARY_HOST"),
    requirements: e("REQUIREMENTS"),
  };
}

/** A flag's value as a positive number (integer when asked), undefined when not given; else a ConfigError. */
export function positive(name: string, v: string | undefined, integer: boolean): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n)))
    throw new ConfigError(
      `${name} must be a positive ${integer ? "integer" : "number"}, got ${JSON.stringify(v)}`,
    );
  return n;
}

export function parseReport(spec: string): ReportTarget {
  const m = /^([a-z]+)=(.+)$/.exec(spec);
  if (!m || !reportFormats.includes(m[1] as ReportFormat))
    throw new ConfigError(
      `--report expects FORMAT=PATH with FORMAT one of ${reportFormats.join(", ")}; got ${spec}`,
    );
  return { format: m[1] as ReportFormat, path: m[2] as string };
}

const pick = <T>(flag: T | undefined, env: T | undefined): T | undefined => (flag !== undefined ? flag : env);
const pickList = (flag: string[] | undefined, env: string[] | undefined) =>
  flag && flag.length > 0 ? flag : (env ?? []);

/** Merge flags > env > fixture file into settings. Throws ConfigError on anything unusable. */
export async function resolveSettings(flags: Flags, env: NodeJS.ProcessEnv = process.env): Promise<Settings> {
  const fromEnv = flagsFromEnv(env);
  const fixturePath = pick(flags.fixture, fromEnv.fixture);
  if (!fixturePath) throw new ConfigError("--fixture FILE (or CAP_CONFORMANCE_FIXTURE) is required");
  let text: string;
  try {
    text = await readFile(fixturePath, "utf8");
  } catch (e) {
    throw new ConfigError(`cannot read fixture ${fixturePath}: ${(e as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`fixture ${fixturePath} is not JSON: ${(e as Error).message}`);
  }
  const fixture = parseFixture(doc, fixturePath);
  const urls = pickList(flags.url, fromEnv.url);
  const level = pick(flags.level, fromEnv.level) ?? "should";
  if (level !== "must" && level !== "should") throw new ConfigError(`--level must be "must" or "should"`);
  const claims = [...new Set([...pickList(flags.claim, fromEnv.claim), ...fixture.features])];
  for (const c of claims)
    if (!features.includes(c as Feature))
      throw new ConfigError(`unknown feature ${JSON.stringify(c)}; known: ${features.join(", ")}`);
  const settings: Settings = {
    fixture,
    urls: (urls.length > 0 ? urls : fixture.urls).map((u) => u.replace(/\/+$/, "")),
    only: pickList(flags.only, fromEnv.only),
    skip: pickList(flags.skip, fromEnv.skip),
    level,
    strict: pick(flags.strict, fromEnv.strict) ?? false,
    timeScale: positive("--time-scale", pick(flags.timeScale, fromEnv.timeScale), false) ?? 1,
    reports: pickList(flags.report, fromEnv.report).map(parseReport),
    trace: pick(flags.trace, fromEnv.trace) ?? false,
    claims: claims as Feature[],
    canaryHost: pick(flags.canaryHost, fromEnv.canaryHost) ?? "127.0.0.1",
  };
  if (settings.urls.length === 0)
    throw new ConfigError("no kernel URL: pass --url or put baseUrl in the fixture");
  for (const u of settings.urls)
    if (!/^https?:\/\/[^/]+/.test(u)) throw new ConfigError(`not an http(s) URL: ${JSON.stringify(u)}`);
  const lease = positive("--lease-seconds", pick(flags.leaseSeconds, fromEnv.leaseSeconds), false);
  const attempts = positive("--max-attempts", pick(flags.maxAttempts, fromEnv.maxAttempts), true);
  const leaseSeconds = lease ?? fixture.leaseSeconds;
  const maxAttempts = attempts ?? fixture.maxAttempts;
  if (leaseSeconds !== undefined) settings.leaseSeconds = leaseSeconds;
  if (maxAttempts !== undefined) settings.maxAttempts = maxAttempts;
  const baseline = pick(flags.baseline, fromEnv.baseline);
  if (baseline) settings.baseline = baseline;
  const trigger = pick(flags.triggerCmd, fromEnv.triggerCmd) ?? fixture.triggerCmd;
  if (trigger) settings.triggerCmd = trigger;
  const down = pick(flags.storeDownCmd, fromEnv.storeDownCmd) ?? fixture.storeOutage?.down;
  const up = pick(flags.storeUpCmd, fromEnv.storeUpCmd) ?? fixture.storeOutage?.up;
  if ((down === undefined) !== (up === undefined))
    throw new ConfigError(
      "the store-outage hook needs both commands: --store-down-cmd and --store-up-cmd (or storeOutage.down and .up in the fixture)",
    );
  if (down !== undefined && up !== undefined) settings.storeOutage = { down, up };
  const requirements = pick(flags.requirements, fromEnv.requirements);
  if (requirements) settings.requirements = requirements;
  return settings;
}
