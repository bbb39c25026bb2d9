/**
 * What every service is built from: the store, the configuration and the clock.
 */
import type { Clock } from "../clock.js";
import type { KernelConfig } from "../config.js";
import type { Store } from "../store/contract.js";
export interface ServiceDeps {
    store: Store;
    config: KernelConfig;
    clock: Clock;
}
/** Who is calling: an agent identity (runtime token) or a human (user API token). */
export interface AgentCaller {
    kind: "agent";
    agentId: string;
    agentName: string;
    instanceId: string;
    tokenId: string;
    installationId: string;
}
export interface UserCaller {
    kind: "human";
    userId: string;
    name: string;
    isAdmin: boolean;
    tokenId: string;
}
/**
 * The operator at the console: the kernel CLI (provision, emit, tokens, demo) acting on the database. It
 * passes the services' checks as a kernel admin acting as `user`, who is recorded as installer or issuer —
 * so provisioning goes through the same rules as the admin routes instead of around them.
 */
export declare function operatorCaller(user: {
    id: string;
    name: string;
}): UserCaller;
