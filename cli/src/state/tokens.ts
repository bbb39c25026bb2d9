/**
 * `tokens/<name>.json`: what `agent attach` learned and `agent run` needs — the runtime token and
 * where it is valid. Always written 0600 (ADR-005, field notes); never logged.
 */
import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { readJson, writeJsonAtomic } from "./atomic-file.js";
import { agentPaths } from "./home.js";

export interface TokenRecord {
  agentName: string;
  instanceId: string;
  podId: string;
  instanceUrl: string;
  runtimeToken: string;
  adapter: string;
  adapterOptions?: Record<string, unknown>;
  /** Kernel id of the runtime token, so `agent detach` can revoke exactly it. */
  tokenId?: string;
  /** Working directory of the wrapped CLI, when not the default. */
  cwd?: string;
  /** After a cancel, post one "stopped" note in the pod (`attach --stop-note`); default nothing. */
  stopNote?: boolean;
  /** ISO 8601. */
  savedAt: string;
}

const REQUIRED = [
  "agentName",
  "instanceId",
  "podId",
  "instanceUrl",
  "runtimeToken",
  "adapter",
  "savedAt",
] as const;

function assertRecord(value: unknown, where: string): asserts value is TokenRecord {
  const v = value as Record<string, unknown> | null;
  const missing = REQUIRED.filter((k) => typeof v?.[k] !== "string" || v[k] === "");
  if (typeof value !== "object" || value === null || missing.length > 0) {
    throw new Error(
      `${where} is not a valid token file (missing ${missing.join(", ")}); attach the agent again`,
    );
  }
}

export async function saveToken(home: string, record: TokenRecord): Promise<void> {
  assertRecord(record, "token record");
  await writeJsonAtomic(agentPaths(home, record.agentName).token, record, 0o600);
}

export async function loadToken(home: string, name: string): Promise<TokenRecord | null> {
  const path = agentPaths(home, name).token;
  const value = await readJson<unknown>(path, null);
  if (value === null) return null;
  assertRecord(value, path);
  return value;
}

export async function removeToken(home: string, name: string): Promise<void> {
  await rm(agentPaths(home, name).token, { force: true });
}

/** Every attached agent, by name; unreadable files are skipped so one bad file hides nothing else. */
export async function listTokens(home: string): Promise<TokenRecord[]> {
  let files: string[];
  try {
    files = await readdir(join(home, "tokens"));
  } catch {
    return [];
  }
  const out: TokenRecord[] = [];
  for (const file of files.filter((f) => f.endsWith(".json") && !f.startsWith(".")).sort()) {
    try {
      const rec = await loadToken(home, file.slice(0, -".json".length));
      if (rec) out.push(rec);
    } catch {
      // A corrupt or misnamed file: `agent list` should still show the others.
    }
  }
  return out;
}
