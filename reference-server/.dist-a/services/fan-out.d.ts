/**
 * Who a new message wakes (CAP-MSG-7..9), as a pure function. A mention is `@name` not preceded by a
 * letter, digit or `_` and not followed by a letter, digit, `_` or `-` (case-insensitive). Rules:
 * - an agent mentioned in the message gets `mention.received` (never also `message.posted`);
 * - a human's message gives `message.posted` to every other installed agent that did not opt out, and to
 *   the author of the message it replies to even if that agent opted out (a decision answer wakes its asker);
 * - an agent's message wakes only the agents it mentions; an author never wakes itself.
 */
import type { InstallationRecord, MessageRecord, NewEvent } from "../store/contract.js";
export declare function mentions(content: string, agentName: string): boolean;
/** The common payload of message.posted / mention.received. */
export declare function messagePayload(m: MessageRecord): Record<string, unknown>;
export interface FanOutInput {
    message: MessageRecord;
    /** Active installations of the message's pod. */
    installations: InstallationRecord[];
    /** The agent identity that wrote the message replied to, if an agent wrote it. */
    replyToAgentId: string | null;
    newEventId: () => string;
}
export declare function fanOut({ message, installations, replyToAgentId, newEventId }: FanOutInput): NewEvent[];
