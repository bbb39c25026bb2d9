/**
 * The kernel's pino logger: JSON lines, Authorization and token headers redacted by path, and — because a
 * secret could reach a log through a message or an error — every line scrubbed of anything shaped like a
 * kernel secret (cm_agent_…, cm_user_…, cm_join_…) before it is written. Must never write a raw token.
 */
import { type DestinationStream, type Logger } from "pino";
export interface LoggerOptions {
    level?: string;
    stream?: DestinationStream;
}
export declare function createLogger(opts?: LoggerOptions): Logger;
