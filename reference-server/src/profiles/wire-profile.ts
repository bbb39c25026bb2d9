/**
 * The contract every wire profile fulfils: how a CAP request authenticates and how events and answers go
 * out. Its own module so the profiles (cap.ts, production.ts) and the registry (index.ts) do not import
 * each other.
 */
import type { IncomingHttpHeaders } from "node:http";
import type { DeliveredEvent } from "../kernel.js";
import type { ProfileName } from "./names.js";

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
  /** The body of a `GET /events` answer, as JSON text (events-answer.ts). */
  eventsBody(events: readonly DeliveredEvent[]): string;
  /** The answer to a successful ack. */
  ackAnswer(): Record<string, unknown>;
  /** Status and body of a successful `POST /pods/{podId}/messages`. */
  postAnswer(m: PostedMessage): { status: number; body: Record<string, unknown> };
  /** Optional CAP features this profile leaves out of `/info` (their CAP routes answer 404 route_not_found). */
  readonly unadvertised: readonly string[];
}
