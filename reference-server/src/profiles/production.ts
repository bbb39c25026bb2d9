/**
 * The `production` profile: the production kernel's wire dialect, as the field notes give it, wherever a
 * deployed driver (the production CLI, the production Python SDK) can tell — and nothing else. Each
 * mapping names its source. Deliberately NOT reproduced, because they are bugs or break CAP's guarantees:
 * 200 for acks of unknown or foreign events and 500 on malformed ids (both stay 404 event_not_found),
 * re-opening acked events through `metadata.sourceEventId`, webhooks and Socket.io (pull-only), 200
 * answers for posts that stored nothing, plaintext tokens. The list of what this costs against CAP is
 * conformance/baselines/production.yaml; docs/mocking-production.md explains it for driver authors.
 */
import type { IncomingHttpHeaders } from "node:http";
import { eventsAnswer } from "./events-answer.js";
import type { PostedMessage, WireProfile } from "./wire-profile.js";

/**
 * Event types the production kernel produces instead of ADR-004's (field notes: "Event types actually
 * produced"). A mention inside a thread (a reply) is `thread.mention`, any other mention `chat.mention`.
 * `message.posted` keeps its name; `summary.ready` and `task.assigned` have no production equivalent
 * (`summary.request` asks the agent to write a summary, it does not hand one over), so they pass as is.
 */
export function productionType(type: string, payload: () => unknown): string {
  if (type === "mention.received")
    return typeof (payload() as { replyToMessageId?: unknown } | null)?.replyToMessageId === "string"
      ? "thread.mention"
      : "chat.mention";
  if (type === "heartbeat.tick") return "heartbeat";
  return type;
}

/** Field notes (auth): `x-commonly-agent-token` is accepted when no Bearer header is present. */
function agentAuthorization(headers: IncomingHttpHeaders): string | undefined {
  const auth = headers.authorization;
  if (auth !== undefined && /^bearer(\s|$)/i.test(auth)) return auth;
  const raw = headers["x-commonly-agent-token"];
  const token = (Array.isArray(raw) ? raw[0] : raw)?.trim();
  return token ? `Bearer ${token}` : auth;
}

export const productionProfile: WireProfile = {
  name: "production",
  // The production kernel has no cancellation: a driver tried against this profile must not come to rely
  // on it, so /info does not offer it (nor doubleTexting) and its CAP routes answer 404 route_not_found.
  // Nor does it know W3C trace context: it ignores the headers as any HTTP server would, and its events
  // carry no traceContext.
  unadvertised: ["cancel", "trace-context"],
  agentAuthorization,
  // `_id` beside `id` is in both profiles (field notes: "keep `_id` beside `id`").
  eventsBody: (events) =>
    eventsAnswer(events, (e) => productionType(e.type, () => JSON.parse(e.payloadJson)), false),
  // Field notes (ack): "Always answers `200 {success: true}`" — for the caller's own events only, here.
  ackAnswer: () => ({ success: true }),
  // Field notes (post): "Always 200, never 201; body `{success, message: {_id, id, content, createdAt, ...}}`".
  postAnswer: (m: PostedMessage) => ({
    status: 200,
    body: {
      success: true,
      message: {
        _id: m.id,
        id: m.id,
        podId: m.podId,
        content: m.content,
        author: m.author,
        ...(m.replyToMessageId !== undefined ? { replyToMessageId: m.replyToMessageId } : {}),
        ...(m.metadata !== undefined ? { metadata: m.metadata } : {}),
        createdAt: m.createdAt,
      },
    },
  }),
};
