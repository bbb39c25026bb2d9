/**
 * Secrets the kernel issues: runtime tokens (`cm_agent_` + 64 hex), user API tokens (`cm_user_` + 64 hex)
 * and join codes (`cm_join_` + 32 hex). Each is generated from a CSPRNG and stored only as SHA-256 hex.
 * Also the opaque ids of everything else. Must never log or persist a raw secret.
 */
import * as crypto from "node:crypto";
import { createHash, randomBytes, randomFillSync } from "node:crypto";

export const RUNTIME_TOKEN = /^cm_agent_[0-9a-f]{64}$/;
export const USER_TOKEN = /^cm_user_[0-9a-f]{64}$/;
export const JOIN_CODE = /^cm_join_[0-9a-f]{32}$/;

/** Every secret shape, for log redaction. */
export const ANY_SECRET = /cm_(agent|user|join)_[0-9a-f]{16,}/g;

export const newRuntimeToken = (): string => `cm_agent_${randomBytes(32).toString("hex")}`;
export const newUserToken = (): string => `cm_user_${randomBytes(32).toString("hex")}`;
export const newJoinCode = (): string => `cm_join_${randomBytes(16).toString("hex")}`;

// Every authenticated request hashes its token: the one-shot crypto.hash (Node ≥ 20.12) costs a third of
// createHash().update().digest(), which older Node 20 releases keep.
const oneShot = (crypto as { hash?: (alg: string, data: string, enc: "hex") => string }).hash;
export const sha256Hex: (text: string) => string = oneShot
  ? (text) => oneShot("sha256", text, "hex")
  : (text) => createHash("sha256").update(text, "utf8").digest("hex");

// Ids are drawn from a pool refilled 4 KiB at a time: one CSPRNG call per ~500 ids instead of one per id
// (a message post makes several ids, and a CSPRNG call per id showed on the hot path). Ids are opaque,
// not secrets; tokens and join codes above still get their own randomBytes each.
const ID_RANDOM_BYTES = 8;
const pool = Buffer.alloc(4096);
let poolAt = pool.length;

/**
 * An opaque id: prefix + the creation millisecond (12 hex characters) + 64 random bits (16 hex). Time
 * first, so the ids a kernel makes land next to each other in every unique index on `id` (events,
 * messages, …): a random key put each insert on its own b-tree page, which every commit then wrote out.
 */
export const newId = (prefix: string): string => {
  if (poolAt + ID_RANDOM_BYTES > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  poolAt += ID_RANDOM_BYTES;
  const time = Date.now().toString(16).padStart(12, "0");
  return `${prefix}_${time}${pool.toString("hex", poolAt - ID_RANDOM_BYTES, poolAt)}`;
};
