import { eventsAnswer } from "./events-answer.js";
/**
 * Event types the production kernel produces instead of ADR-004's (field notes: "Event types actually
 * produced"). A mention inside a thread (a reply) is `thread.mention`, any other mention `chat.mention`.
 * `message.posted` keeps its name; `summary.ready` and `task.assigned` have no production equivalent
 * (`summary.request` asks the agent to write a summary, it does not hand one over), so they pass as is.
 */
export function productionType(type, payload) {
    if (type === "mention.received")
        return typeof payload()?.replyToMessageId === "string"
            ? "thread.mention"
            : "chat.mention";
    if (type === "heartbeat.tick")
        return "heartbeat";
    return type;
}
/** Field notes (auth): `x-commonly-agent-token` is accepted when no Bearer header is present. */
function agentAuthorization(headers) {
    const auth = headers.authorization;
    if (auth !== undefined && /^bearer(\s|$)/i.test(auth))
        return auth;
    const raw = headers["x-commonly-agent-token"];
    const token = (Array.isArray(raw) ? raw[0] : raw)?.trim();
    return token ? `Bearer ${token}` : auth;
}
export const productionProfile = {
    name: "production",
    agentAuthorization,
    // `_id` beside `id` is in both profiles (field notes: "keep `_id` beside `id`").
    eventsBody: (events) => eventsAnswer(events, (e) => productionType(e.type, () => JSON.parse(e.payloadJson))),
    // Field notes (ack): "Always answers `200 {success: true}`" — for the caller's own events only, here.
    ackAnswer: () => ({ success: true }),
    // Field notes (post): "Always 200, never 201; body `{success, message: {_id, id, content, createdAt, ...}}`".
    postAnswer: (m) => ({
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
//# sourceMappingURL=production.js.map