/**
 * Who may do what on the admin surface. Kernel admins may do everything; a pod's admins manage its
 * members, installations, tokens, join codes and queue; its members read and post. A non-member gets the
 * same 404 as for a pod that does not exist, so pod existence does not leak.
 */
import { fail } from "../errors/registry.js";
export function requireKernelAdmin(user) {
    if (!user.isAdmin)
        fail("forbidden", "Only a kernel admin may do this.");
}
export async function requirePodMember(store, user, podId, notFound = "pod_not_found") {
    const pod = await store.getPod(podId);
    if (!pod)
        fail(notFound);
    const member = await store.getMember(podId, user.userId);
    if (!member && !user.isAdmin)
        fail(notFound);
    return { pod, member };
}
export async function requirePodAdmin(store, user, podId) {
    const { pod, member } = await requirePodMember(store, user, podId);
    if (!user.isAdmin && member?.role !== "admin")
        fail("forbidden", "Only an admin of this pod may do this.");
    return pod;
}
//# sourceMappingURL=access.js.map