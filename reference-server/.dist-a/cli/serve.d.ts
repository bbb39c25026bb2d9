import { type ServeFlags } from "./settings.js";
export declare function startServer(flags: ServeFlags, extra?: {
    logger?: false;
}): Promise<{
    app: import("../http/app.js").KernelApp;
    settings: {
        port: number;
        host: string;
        logLevel: string;
        profile: "cap" | "production";
        db: string;
        leaseSeconds: number;
        maxAttempts: number;
    };
    url: string;
}>;
/** Close app then store once, on the first of the given signals; resolves when done. */
export declare function closeOnSignals(close: () => Promise<void>): Promise<void>;
export declare function serveCommand(flags: ServeFlags): Promise<void>;
