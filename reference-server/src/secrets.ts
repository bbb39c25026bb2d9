/**
 * Secrets the kernel issues: runtime tokens (`cm_agent_` + 64 hex), user API tokens (`cm_user_` + 64 hex)
 * and join codes (`cm_join_` + 32 hex). Each is generated from a CSPRNG and stored only as SHA-256 hex.
 * Also the opaque ids of everything else. Must never log or persist a raw secret.
 */
import { createHash, randomBytes } from "node:crypto";

export const RUNTIME_TOKEN = /^cm_agent_[0-9a-f]{64}$/;
export const USER_TOKEN = /^cm_user_[0-9a-f]{64}$/;
export const JOIN_CODE = /^cm_join_[0-9a-f]{32}$/;

/** Every secret shape, for log redaction. */
export const ANY_SECRET = /cm_(agent|user|join)_[0-9a-f]{16,}/g;

export const newRuntimeToken = (): string => `cm_agent_${randomBytes(32).toString("hex")}`;
export const newUserToken = (): string => `cm_user_${randomBytes(32).toString("hex")}`;
export const newJoinCode = (): string => `cm_join_${randomBytes(16).toString("hex")}`;

export const sha256Hex = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex");

/** An opaque id: prefix + 20 hex characters (80 random bits). */
export const newId = (prefix: string): string => `${prefix}_${randomBytes(10).toString("hex")}`;
