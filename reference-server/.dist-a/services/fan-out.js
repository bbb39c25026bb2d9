const escapeRegExp = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** Compiled once per name: every post tests every installed agent's name (the conversational profile). */
const patterns = new Map();
const PATTERNS_MAX = 10_000;
export function mentions(content, agentName) {
    let re = patterns.get(agentName);
    if (re === undefined) {
        if (patterns.size >= PATTERNS_MAX)
            patterns.clear();
        re = new RegExp(`(?<![A-Za-z0-9_])@${escapeRegExp(agentName)}(?![A-Za-z0-9_-])`, "i");
        patterns.set(agentName, re);
    }
    return re.test(content);
}
/** The common payload of message.posted / mention.received. */
export function messagePayload(m) {
    return {
        messageId: m.id,
        podId: m.podId,
        content: m.content,
        author: { id: m.author.id, kind: m.author.kind, name: m.author.name },
        ...(m.replyToMessageId !== null ? { replyToMessageId: m.replyToMessageId } : {}),
        ...(m.metadata !== null ? { metadata: m.metadata } : {}),
    };
}
export function fanOut({ message, installations, replyToAgentId, newEventId }) {
    const out = [];
    const byHuman = message.author.kind === "human";
    const payload = messagePayload(message);
    for (const inst of installations) {
        if (message.author.kind === "agent" && inst.agentId === message.author.id)
            continue;
        // An id only for an event that is made: an agent's post wakes just the agents it mentions.
        const base = () => ({
            id: newEventId(),
            agentId: inst.agentId,
            podId: message.podId,
            createdAt: message.createdAt,
        });
        if (mentions(message.content, inst.agentName)) {
            out.push({ ...base(), type: "mention.received", payload: { ...payload, mention: inst.agentName } });
        }
        else if (byHuman && (inst.messagePosted || inst.agentId === replyToAgentId)) {
            out.push({ ...base(), type: "message.posted", payload });
        }
    }
    return out;
}
//# sourceMappingURL=fan-out.js.map