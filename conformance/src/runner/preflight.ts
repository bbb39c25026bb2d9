/**
 * Before any check: every URL answers, every fixture token is accepted, `/info` is read (timing and
 * features), and the fixture agents' queues are drained so leftovers of earlier runs cannot confuse this
 * one. Anything wrong here is a configuration problem (exit 2), not a kernel failure.
 */
import { CAP_BASE_PATH } from "@commonly/cap-spec/constants";
import { ConfigError } from "../config/errors.js";
import type { Cast } from "../config/fixture.js";
import type { Settings } from "../config/settings.js";
import { type Feature, features as knownFeatures } from "../features.js";
import type { HttpClient, NetworkError } from "../http/client.js";
import type { Timing } from "../timing.js";

const R = CAP_BASE_PATH;

export interface Preflight {
  info?: Record<string, unknown>;
  features: Set<Feature>;
  timing: Timing;
  notes: string[];
}

export async function preflight(http: HttpClient, settings: Settings, cast: Cast): Promise<Preflight> {
  const notes: string[] = [];
  let info: Record<string, unknown> | undefined;
  for (const [i, url] of settings.urls.entries()) {
    let x: Awaited<ReturnType<HttpClient["send"]>>;
    try {
      x = await http.send({ method: "GET", path: `${R}/info`, token: cast.a.token, as: "a", urlIndex: i });
    } catch (e) {
      throw new ConfigError(`cannot reach the kernel at ${url}: ${(e as NetworkError).message}`);
    }
    if (x.status === 200 && x.json && typeof x.json === "object" && !info)
      info = x.json as Record<string, unknown>;
  }
  for (const role of ["a", "b", "c"] as const) {
    const x = await http.send({ method: "GET", path: `${R}/memory`, token: cast[role].token, as: role });
    if (x.status === 401)
      throw new ConfigError(
        `the kernel rejects the fixture token of agent ${cast[role].name} (${role}): ${x.responseBody.slice(0, 200)}`,
      );
  }
  const features = new Set<Feature>(settings.claims);
  if (info) {
    features.add("info");
    const advertised = Array.isArray(info.features) ? info.features : [];
    for (const f of advertised) if (knownFeatures.includes(f as Feature)) features.add(f as Feature);
  }
  const num = (v: unknown) => (typeof v === "number" && v > 0 ? v : undefined);
  const infoLease = num(info?.leaseSeconds);
  if (infoLease !== undefined && settings.leaseSeconds !== undefined && infoLease !== settings.leaseSeconds)
    notes.push(`/info says leaseSeconds ${infoLease}; the configured ${settings.leaseSeconds} is ignored`);
  const infoAttempts = num(info?.maxAttempts);
  if (
    infoAttempts !== undefined &&
    settings.maxAttempts !== undefined &&
    infoAttempts !== settings.maxAttempts
  )
    notes.push(`/info says maxAttempts ${infoAttempts}; the configured ${settings.maxAttempts} is ignored`);
  const lease = infoLease ?? settings.leaseSeconds;
  const attempts = infoAttempts ?? settings.maxAttempts;
  const timing: Timing = { timeScale: settings.timeScale };
  if (lease !== undefined) timing.leaseMs = lease * 1000;
  if (attempts !== undefined) timing.maxAttempts = attempts;
  const wait = num(info?.maxWaitSeconds);
  if (wait !== undefined) timing.maxWaitSeconds = wait;
  if (lease === undefined)
    notes.push("lease duration unknown (no /info, no --lease-seconds): lease checks cannot run");
  return { ...(info ? { info } : {}), features, timing, notes };
}
