import type { WireProfile } from "./wire-profile.js";
/**
 * Event types the production kernel produces instead of ADR-004's (field notes: "Event types actually
 * produced"). A mention inside a thread (a reply) is `thread.mention`, any other mention `chat.mention`.
 * `message.posted` keeps its name; `summary.ready` and `task.assigned` have no production equivalent
 * (`summary.request` asks the agent to write a summary, it does not hand one over), so they pass as is.
 */
export declare function productionType(type: string, payload: () => unknown): string;
export declare const productionProfile: WireProfile;
