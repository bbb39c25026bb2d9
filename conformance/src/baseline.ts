/**
 * Known failures of one kernel, kept in `expected-failures.yaml`. A listed failure does not fail the run;
 * a listed entry that now passes does (the file can only shrink), so a fixed bug cannot hide behind a
 * stale entry. Entries name a check id or a requirement id, each with a reason: an entry without one is a
 * configuration error (exit 2), as other suites' expected-failure files treat it, so no failure is
 * waved through without someone saying why.
 *
 *   expectedFailures:
 *     - check: leases.max-attempts
 *       reason: dead-lettering lands in 2.3
 *     - requirement: CAP-MEM-15
 *       reason: canonical JSON sorts keys by UTF-16 code unit
 */
import { readFile } from "node:fs/promises";
import { parse } from "yaml";
import { ConfigError } from "./config/errors.js";

export interface BaselineEntry {
  check?: string;
  requirement?: string;
  reason: string;
}

export interface Baseline {
  path: string;
  entries: BaselineEntry[];
}

export function parseBaseline(text: string, path: string): Baseline {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (e) {
    throw new ConfigError(`baseline ${path} is not YAML: ${(e as Error).message}`);
  }
  const list = Array.isArray(doc) ? doc : ((doc ?? {}) as { expectedFailures?: unknown }).expectedFailures;
  if (list === undefined || list === null) return { path, entries: [] };
  if (!Array.isArray(list)) throw new ConfigError(`baseline ${path}: expectedFailures must be a list`);
  const entries = list.map((raw, i): BaselineEntry => {
    const e = (raw ?? {}) as Record<string, unknown>;
    const check = typeof e.check === "string" ? e.check : undefined;
    const requirement = typeof e.requirement === "string" ? e.requirement : undefined;
    if (!check === !requirement)
      throw new ConfigError(`baseline ${path}: entry ${i} needs exactly one of "check" or "requirement"`);
    const reason = typeof e.reason === "string" ? e.reason.trim() : "";
    if (!reason)
      throw new ConfigError(
        `baseline ${path}: entry ${i} (${check ? `check ${check}` : `requirement ${requirement}`}) has no "reason": say why the failure is expected (a tracking link, a release it is fixed in)`,
      );
    return { ...(check ? { check } : {}), ...(requirement ? { requirement } : {}), reason };
  });
  return { path, entries };
}

export async function loadBaseline(path: string): Promise<Baseline> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (e) {
    throw new ConfigError(`cannot read baseline ${path}: ${(e as Error).message}`);
  }
  return parseBaseline(text, path);
}

export const describeEntry = (e: BaselineEntry) =>
  e.check ? `check ${e.check}` : `requirement ${e.requirement}`;
