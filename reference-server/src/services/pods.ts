/**
 * Pods and their members. The creator becomes the pod's first admin. A human who stops being one of a
 * pod's admins (removed, or made a plain member) loses what they issued there: the runtime tokens they
 * minted through the pod's installations are revoked and their unused join codes for it end, so a former
 * admin keeps no credential into the pod.
 */
import { iso } from "../clock.js";
import { fail } from "../errors/registry.js";
import { newId } from "../secrets.js";
import type { MemberRecord, PodRecord, PodRole, StoreOps } from "../store/contract.js";
import { requirePodAdmin, requirePodMember } from "./access.js";
import type { ServiceDeps, UserCaller } from "./deps.js";

export const wirePod = (p: PodRecord) => ({
  id: p.id,
  name: p.name,
  createdBy: p.createdBy,
  createdAt: iso(p.createdAt),
});
export const wireMember = (m: MemberRecord) => ({ userId: m.userId, role: m.role, addedAt: iso(m.addedAt) });

export function createPodsService({ store, clock }: ServiceDeps) {
  async function endIssuedIn(tx: StoreOps, podId: string, userId: string): Promise<void> {
    const now = clock.now();
    await tx.revokeRuntimeTokensIssuedInPod({ userId, podId, now });
    await tx.expireJoinCodesCreatedBy({ userId, podId, now });
  }

  /** No permission check: used by the route (any authenticated user may create a pod) and the CLI. */
  async function createPod(creatorId: string, name: string): Promise<PodRecord> {
    return store.transaction(async (tx) => {
      const pod: PodRecord = { id: newId("pod"), name, createdBy: creatorId, createdAt: clock.now() };
      await tx.insertPod(pod);
      await tx.putMember({ podId: pod.id, userId: creatorId, role: "admin", addedAt: pod.createdAt });
      return pod;
    });
  }

  return {
    createPod,

    async list(user: UserCaller) {
      return store.listPods(user.isAdmin ? {} : { userId: user.userId });
    },

    async get(user: UserCaller, podId: string) {
      const { pod } = await requirePodMember(store, user, podId);
      const [members, installations] = await Promise.all([
        store.listMembers(podId),
        store.listInstallations({ podId, activeOnly: true }),
      ]);
      return { pod, members, installations };
    },

    async addMember(user: UserCaller, podId: string, input: { userId: string; role?: PodRole }) {
      await requirePodAdmin(store, user, podId);
      const target = await store.getUser(input.userId);
      if (!target || target.deletedAt !== null) fail("user_not_found");
      const existing = await store.getMember(podId, input.userId);
      const member: MemberRecord = {
        podId,
        userId: input.userId,
        role: input.role ?? existing?.role ?? "member",
        addedAt: existing?.addedAt ?? clock.now(),
      };
      await store.transaction(async (tx) => {
        await tx.putMember(member);
        if (existing?.role === "admin" && member.role !== "admin")
          await endIssuedIn(tx, podId, member.userId);
      });
      return member;
    },

    async removeMember(user: UserCaller, podId: string, userId: string) {
      await requirePodAdmin(store, user, podId);
      await store.transaction(async (tx) => {
        const existing = await tx.getMember(podId, userId);
        if (!existing || !(await tx.removeMember(podId, userId)))
          fail("user_not_found", "That user is not a member of this pod.");
        if (existing.role === "admin") await endIssuedIn(tx, podId, userId);
      });
    },
  };
}

export type PodsService = ReturnType<typeof createPodsService>;
