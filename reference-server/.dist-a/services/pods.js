/**
 * Pods and their members. The creator becomes the pod's first admin.
 */
import { iso } from "../clock.js";
import { fail } from "../errors/registry.js";
import { newId } from "../secrets.js";
import { requirePodAdmin, requirePodMember } from "./access.js";
export const wirePod = (p) => ({
    id: p.id,
    name: p.name,
    createdBy: p.createdBy,
    createdAt: iso(p.createdAt),
});
export const wireMember = (m) => ({ userId: m.userId, role: m.role, addedAt: iso(m.addedAt) });
export function createPodsService({ store, clock }) {
    /** No permission check: used by the route (any authenticated user may create a pod) and the CLI. */
    async function createPod(creatorId, name) {
        return store.transaction(async (tx) => {
            const pod = { id: newId("pod"), name, createdBy: creatorId, createdAt: clock.now() };
            await tx.insertPod(pod);
            await tx.putMember({ podId: pod.id, userId: creatorId, role: "admin", addedAt: pod.createdAt });
            return pod;
        });
    }
    return {
        createPod,
        async list(user) {
            return store.listPods(user.isAdmin ? {} : { userId: user.userId });
        },
        async get(user, podId) {
            const { pod } = await requirePodMember(store, user, podId);
            const [members, installations] = await Promise.all([
                store.listMembers(podId),
                store.listInstallations({ podId, activeOnly: true }),
            ]);
            return { pod, members, installations };
        },
        async addMember(user, podId, input) {
            await requirePodAdmin(store, user, podId);
            const target = await store.getUser(input.userId);
            if (!target || target.deletedAt !== null)
                fail("user_not_found");
            const existing = await store.getMember(podId, input.userId);
            const member = {
                podId,
                userId: input.userId,
                role: input.role ?? existing?.role ?? "member",
                addedAt: existing?.addedAt ?? clock.now(),
            };
            await store.putMember(member);
            return member;
        },
        async removeMember(user, podId, userId) {
            await requirePodAdmin(store, user, podId);
            if (!(await store.removeMember(podId, userId)))
                fail("user_not_found", "That user is not a member of this pod.");
        },
    };
}
//# sourceMappingURL=pods.js.map