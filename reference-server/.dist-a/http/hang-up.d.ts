/**
 * A client's hang-up as a long-poll's Cancellation: aborted when the connection closes before the answer
 * was written, so a driver that has gone has nothing claimed for it. One listener on the response and a
 * plain object per poll instead of an AbortController (creating its signal and adding and removing its
 * listener were about 6 % of the idle kernel's JavaScript samples, 2,000 parked polls).
 *
 * Must never: abort after the answer was written, or keep its listener on the response after dispose().
 * Holds one abort listener at a time (a wait adds one and removes it).
 */
import type { ServerResponse } from "node:http";
import type { Cancellation } from "../services/wake-hub.js";
export declare class HangUp implements Cancellation {
    #private;
    aborted: boolean;
    constructor(res: ServerResponse);
    addEventListener(_type: "abort", listener: () => void): void;
    removeEventListener(_type: "abort", listener: () => void): void;
    /** The answer is being written (or the poll failed): stop watching the connection. */
    dispose(): void;
}
