/**
 * The default profile: CAP v1 exactly (docs/CAP.md). Bearer only (CAP-AUTH-1), the documented event
 * types, `200 {ok: true}` acks (CAP-ACK-1) and `201 {id, createdAt}` posts (CAP-MSG-1).
 */
import { eventsAnswer } from "./events-answer.js";
import type { WireProfile } from "./wire-profile.js";

export const capProfile: WireProfile = {
  name: "cap",
  agentAuthorization: (headers) => headers.authorization,
  eventsBody: (events) => eventsAnswer(events),
  ackAnswer: () => ({ ok: true }),
  postAnswer: (m) => ({ status: 201, body: { id: m.id, createdAt: m.createdAt } }),
  unadvertised: [],
};
