/**
 * buildApp({store | db, config}): the kernel as a Fastify app — CAP under /api/agents/runtime, the admin
 * surface under /api, ops routes — with one error shape, JSON-only bodies, metrics and redacted logs.
 * close() is graceful: long-polls are released with [] first, in-flight requests finish, new ones get 503.
 * Routes stay thin; every rule lives in the services (src/services), every query in the store.
 */
import { type FastifyInstance } from "fastify";
import type { Logger } from "pino";
import type { Clock } from "../clock.js";
import type { KernelConfig } from "../config.js";
import { type Kernel, type Store } from "../kernel.js";
import { type ProfileName } from "../profiles/index.js";
import { type LoggerOptions } from "./logger.js";
import "./types.js";
export type BuildAppOptions = AppOptions & ({
    store: Store;
} | {
    db: string;
});
interface AppOptions {
    config?: Partial<KernelConfig>;
    clock?: Clock;
    /** The wire dialect of the CAP routes (src/profiles): `cap` (default, CAP v1 exactly) or `production`. */
    profile?: ProfileName;
    /** false: no logs. Default: info-level JSON lines on stdout. */
    logger?: false | LoggerOptions | Logger;
}
export type KernelApp = FastifyInstance & {
    kernel: Kernel;
};
/** Server timeouts (ms), exported for the test that holds them against the longest long-poll. */
export declare const SERVER_TIMEOUTS: {
    keepAliveTimeout: number;
    requestTimeout: number;
};
export declare function buildApp(options: BuildAppOptions): Promise<KernelApp>;
export {};
