/**
 * Who a new message wakes (CAP-MSG-7..9), as a pure function. A mention is `@name` not preceded by a
 * letter, digit or `_` and not followed by a letter, digit, `_` or `-` (case-insensitive). Rules:
 * - an agent mentioned in the message gets `mention.received` (never also `message.posted`);
 * - a human's message gives `message.posted` to every other installed agent that did not opt out, and to
 *   the author of the message it replies to even if that agent opted out (a decision answer wakes its asker);
 * - an agent's message wakes only the agents it mentions; an author never wakes itself.
 */
import type { InstallationRecord, MessageRecord, NewEvent } from "../store/contract.js";

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Compiled once per name: every post tests every installed agent's name (the conversational profile).
 * `at` is `@name` in lower case: a content without it cannot mention the name, and that substring test
 * spares the regular expression for all but the agents a post may mention.
 */
const patterns = new Map<string, { at: string; re: RegExp }>();
const PATTERNS_MAX = 10_000;

function patternOf(agentName: string) {
  let p = patterns.get(agentName);
  if (p === undefined) {
    if (patterns.size >= PATTERNS_MAX) patterns.clear();
    p = {
      at: `@${agentName.toLowerCase()}`,
      re: new RegExp(`(?<![A-Za-z0-9_])@${escapeRegExp(agentName)}(?![A-Za-z0-9_-])`, "i"),
    };
    patterns.set(agentName, p);
  }
  return p;
}

/** `lowerContent`: the content in lower case, when the caller tests several names against one content. */
export function mentions(content: string, agentName: string, lowerContent = content.toLowerCase()): boolean {
  const { at, re } = patternOf(agentName);
  return lowerContent.includes(at) && re.test(content);
}

/** The common payload of message.posted / mention.received. */
export function messagePayload(m: MessageRecord): Record<string, unknown> {
  return {
    messageId: m.id,
    podId: m.podId,
    content: m.content,
    author: { id: m.author.id, kind: m.author.kind, name: m.author.name },
    ...(m.replyToMessageId !== null ? { replyToMessageId: m.replyToMessageId } : {}),
    ...(m.metadata !== null ? { metadata: m.metadata } : {}),
  };
}

export interface FanOutInput {
  message: MessageRecord;
  /** Active installations of the message's pod. */
  installations: InstallationRecord[];
  /** The agent identity that wrote the message replied to, if an agent wrote it. */
  replyToAgentId: string | null;
  newEventId: () => string;
}

export function fanOut({ message, installations, replyToAgentId, newEventId }: FanOutInput): NewEvent[] {
  const out: NewEvent[] = [];
  const byHuman = message.author.kind === "human";
  const payload = messagePayload(message);
  const lower = message.content.toLowerCase();
  for (const inst of installations) {
    if (message.author.kind === "agent" && inst.agentId === message.author.id) continue;
    let type: string;
    let eventPayload = payload;
    if (mentions(message.content, inst.agentName, lower)) {
      type = "mention.received";
      eventPayload = { ...payload, mention: inst.agentName };
    } else if (byHuman && (inst.messagePosted || inst.agentId === replyToAgentId)) type = "message.posted";
    else continue;
    // An id only for an event that is made: an agent's post wakes just the agents it mentions.
    out.push({
      id: newEventId(),
      agentId: inst.agentId,
      podId: message.podId,
      type,
      payload: eventPayload,
      createdAt: message.createdAt,
      messageId: message.id,
    });
  }
  return out;
}
