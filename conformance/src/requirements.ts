/**
 * The requirements manifest (`spec/requirements.yaml`, shipped as `@commonly/cap-spec/requirements.json`):
 * every MUST/SHOULD/MAY of CAP v1 with a stable id. The runner reads levels and texts from it; it never
 * invents a requirement. A kernel implementer may point `--requirements` at another copy.
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { parse } from "yaml";
import { type Feature, features } from "./features.js";

export type Level = "MUST" | "SHOULD" | "MAY";

export interface Requirement {
  id: string;
  level: Level;
  subject: "kernel" | "driver";
  text: string;
  section: string;
  testable: boolean;
  feature: Feature | null;
}

export interface Manifest {
  source: string;
  requirements: Requirement[];
  byId: Map<string, Requirement>;
}

const levels = new Set<string>(["MUST", "SHOULD", "MAY"]);

/** Where the manifest of the installed `@commonly/cap-spec` lives. */
export function defaultManifestPath(): string {
  const require = createRequire(import.meta.url);
  try {
    return require.resolve("@commonly/cap-spec/requirements.json");
  } catch {
    return require.resolve("@commonly/cap-spec/requirements.yaml");
  }
}

/** Parse and sanity-check a manifest document (JSON or YAML text). Throws with a readable message. */
export function parseManifest(text: string, source: string): Manifest {
  const doc = parse(text) as unknown;
  const list = Array.isArray(doc) ? doc : (doc as { requirements?: unknown })?.requirements;
  if (!Array.isArray(list)) throw new Error(`${source}: expected a list of requirements`);
  const requirements: Requirement[] = [];
  const byId = new Map<string, Requirement>();
  for (const [i, raw] of list.entries()) {
    const r = raw as Record<string, unknown>;
    const where = `${source}: requirements[${i}]`;
    if (typeof r.id !== "string" || !/^CAP-[A-Z]+-\d+$/.test(r.id)) throw new Error(`${where}: bad id`);
    if (typeof r.level !== "string" || !levels.has(r.level)) throw new Error(`${where}: bad level`);
    const feature = (r.feature ?? null) as Feature | null;
    if (feature !== null && !features.includes(feature))
      throw new Error(`${where}: unknown feature ${JSON.stringify(feature)}`);
    const req: Requirement = {
      id: r.id,
      level: r.level as Level,
      subject: r.subject === "driver" ? "driver" : "kernel",
      text: String(r.text ?? ""),
      section: String(r.section ?? ""),
      testable: r.testable !== false,
      feature,
    };
    if (byId.has(req.id)) throw new Error(`${where}: duplicate id ${req.id}`);
    byId.set(req.id, req);
    requirements.push(req);
  }
  return { source, requirements, byId };
}

export async function loadManifest(path: string = defaultManifestPath()): Promise<Manifest> {
  return parseManifest(await readFile(path, "utf8"), path);
}

const rank: Record<Level, number> = { MUST: 3, SHOULD: 2, MAY: 1 };

/** The strongest level among some requirements (a check's level in `list`). */
export function strongest(reqs: readonly Requirement[]): Level {
  let best: Level = "MAY";
  for (const r of reqs) if (rank[r.level] > rank[best]) best = r.level;
  return best;
}
