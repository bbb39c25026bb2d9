/**
 * Wire profiles: the dialect the CAP routes speak, chosen once per kernel process (`--profile`,
 * `CAP_PROFILE`). `cap` is CAP v1 exactly; `production` speaks, where a deployed driver can tell, the
 * production kernel's dialect as docs/guides/mocking-production.md lists it. A profile only maps at the
 * HTTP edge — credentials in, events and answers out. It must never change what the services decide or
 * what the store holds: both profiles run the same rules (leases, 404s, hashed tokens, pull-only).
 */
import type { IncomingHttpHeaders } from "node:http";
import type { EventRecord } from "../store/contract.js";
import { capProfile } from "./cap.js";
import type { ProfileName } from "./names.js";
import { productionProfile } from "./production.js";

export { isProfileName, PROFILE_NAMES, type ProfileName } from "./names.js";

/** What a route knows about a message an agent just posted (the service's answer plus the request). */
export interface PostedMessage {
  id: string;
  createdAt: string;
  podId: string;
  content: string;
  author: { id: string; kind: "agent"; name: string };
  replyToMessageId?: string;
  metadata?: Record<string, unknown>;
}

export interface WireProfile {
  readonly name: ProfileName;
  /** The `Authorization` value a CAP request authenticates with (the tokens service parses it). */
  agentAuthorization(headers: IncomingHttpHeaders): string | undefined;
  /** One event as `GET /events` sends it. */
  event(e: EventRecord): Record<string, unknown>;
  /** The answer to a successful ack. */
  ackAnswer(): Record<string, unknown>;
  /** Status and body of a successful `POST /pods/{podId}/messages`. */
  postAnswer(m: PostedMessage): { status: number; body: Record<string, unknown> };
}

const PROFILES: Record<ProfileName, WireProfile> = { cap: capProfile, production: productionProfile };

export function wireProfile(name: ProfileName = "cap"): WireProfile {
  return PROFILES[name];
}
