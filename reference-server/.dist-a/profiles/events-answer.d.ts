import type { DeliveredEvent } from "../kernel.js";
/** `{"events":[…]}` for `events`; `typeOf` gives each event's wire `type` (a profile may rename types). */
export declare function eventsAnswer(events: readonly DeliveredEvent[], typeOf?: (e: DeliveredEvent) => string): string;
