/**
 * Who may do what on the admin surface. Kernel admins may do everything; a pod's admins manage its
 * members, installations, tokens, join codes and queue; its members read and post. A non-member gets the
 * same 404 as for a pod that does not exist, so pod existence does not leak.
 */
import { type ErrorCode } from "../errors/registry.js";
import type { MemberRecord, PodRecord, StoreOps } from "../store/contract.js";
import type { UserCaller } from "./deps.js";
export declare function requireKernelAdmin(user: UserCaller): void;
export declare function requirePodMember(store: StoreOps, user: UserCaller, podId: string, notFound?: ErrorCode): Promise<{
    pod: PodRecord;
    member: MemberRecord | null;
}>;
export declare function requirePodAdmin(store: StoreOps, user: UserCaller, podId: string): Promise<PodRecord>;
