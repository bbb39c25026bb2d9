import type { Kernel } from "../kernel.js";
import type { ServeFlags } from "./settings.js";
export declare const DEMO_DB = "sqlite:.cap-kernel/demo.db";
/** Find-or-create the demo human, pod and agents; issue fresh tokens (tokens are shown once). */
export declare function seedDemo(k: Kernel): Promise<{
    who: import("../services/deps.js").UserCaller;
    humanToken: string;
    podId: string;
    echoToken: string;
    helperToken: string;
}>;
export declare function demoCommand(flags: ServeFlags & {
    driver?: string;
}): Promise<void>;
