/**
 * The store contract suite: one set of behaviours every Store implementation must show (src/store/README.md).
 * Call `runStoreContract(makeStore)` from a test file; each test gets a fresh store from `makeStore` and
 * closes it afterwards. Used for SQLite here and for PostgreSQL by the postgres store's tests.
 * Long because it is one table of the whole contract; the event lifecycle lives in contract-suite-events.ts.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Store, StoreConflictError } from "../../src/store/contract.js";
import {
  aMessage,
  anIdentity,
  anInstallation,
  aPod,
  aUser,
  aWorld,
  fakeHash,
  T0,
  uid,
} from "./contract-fixtures.js";
import { runCancelContract } from "./contract-suite-cancel.js";
import { runEventContract } from "./contract-suite-events.js";
import { runHistoryContract } from "./contract-suite-history.js";
import { runPollReplayContract } from "./contract-suite-poll-replay.js";
import { runQueueVerbContract } from "./contract-suite-queue-verbs.js";

export type MakeStore = () => Promise<Store>;

export function runStoreContract(makeStore: MakeStore, label = "store"): void {
  describe(`${label} contract`, () => {
    let s: Store;
    beforeEach(async () => {
      s = await makeStore();
    });
    afterEach(async () => {
      await s.close();
    });
    const store = () => s;

    describe("users and user tokens", () => {
      it("stores a user and finds it by id and by name until it is deleted", async () => {
        const u = await aUser(s, { name: "bob", isAdmin: true });
        expect(await s.getUser(u.id)).toEqual(u);
        expect((await s.findUsersByName("bob")).map((x) => x.id)).toEqual([u.id]);
        expect(await s.markUserDeleted(u.id, T0 + 5)).toBe(true);
        expect(await s.markUserDeleted(u.id, T0 + 6)).toBe(false);
        expect((await s.getUser(u.id))?.deletedAt).toBe(T0 + 5);
        expect(await s.findUsersByName("bob")).toEqual([]);
        expect((await s.listUsers()).map((x) => x.id)).toContain(u.id);
      });

      it("finds a user token by hash with its user and revokes all tokens of a user", async () => {
        const u = await aUser(s);
        const hash = fakeHash();
        await s.insertUserToken({
          id: uid("utk"),
          userId: u.id,
          hash,
          label: "cli",
          createdAt: T0,
          revokedAt: null,
        });
        await s.insertUserToken({
          id: uid("utk"),
          userId: u.id,
          hash: fakeHash(),
          label: null,
          createdAt: T0,
          revokedAt: null,
        });
        const found = await s.findUserTokenByHash(hash);
        expect(found?.user.id).toBe(u.id);
        expect(found?.token.label).toBe("cli");
        expect(await s.findUserTokenByHash(fakeHash())).toBeNull();
        expect(await s.revokeUserTokensOfUser(u.id, T0 + 1)).toBe(2);
        expect(await s.revokeUserTokensOfUser(u.id, T0 + 2)).toBe(0);
        expect((await s.findUserTokenByHash(hash))?.token.revokedAt).toBe(T0 + 1);
      });
    });

    describe("pods and members", () => {
      it("lists all pods or only the pods a user belongs to, and updates roles in place", async () => {
        const a = await aUser(s);
        const b = await aUser(s, { name: "bob" });
        const p1 = await aPod(s, a.id, { name: "one" });
        const p2 = await aPod(s, a.id, { name: "two", createdAt: T0 + 1 });
        await s.putMember({ podId: p1.id, userId: b.id, role: "member", addedAt: T0 });
        await s.putMember({ podId: p1.id, userId: b.id, role: "admin", addedAt: T0 });
        expect((await s.listPods()).map((p) => p.id)).toEqual([p1.id, p2.id]);
        expect((await s.listPods({ userId: b.id })).map((p) => p.id)).toEqual([p1.id]);
        expect((await s.getMember(p1.id, b.id))?.role).toBe("admin");
        expect(await s.listMembers(p1.id)).toHaveLength(1);
        expect((await s.findPodsByName("two")).map((p) => p.id)).toEqual([p2.id]);
        expect(await s.removeMember(p1.id, b.id)).toBe(true);
        expect(await s.removeMember(p1.id, b.id)).toBe(false);
        expect(await s.getMember(p1.id, b.id)).toBeNull();
        expect(await s.getPod("pod_nope")).toBeNull();
      });
    });

    describe("registry, identities, installations", () => {
      it("replaces a registry entry by name", async () => {
        const rec = { name: "echo", manifest: { v: 1 }, publishedBy: "usr_a", createdAt: T0, updatedAt: T0 };
        await s.putRegistryAgent(rec);
        await s.putRegistryAgent({ ...rec, manifest: { v: 2 }, updatedAt: T0 + 1 });
        expect((await s.getRegistryAgent("echo"))?.manifest).toEqual({ v: 2 });
        expect(await s.listRegistryAgents()).toHaveLength(1);
      });

      it("returns the existing identity for the same (agentName, instanceId)", async () => {
        const first = await anIdentity(s, "echo", "a");
        const again = await anIdentity(s, "echo", "a");
        const other = await anIdentity(s, "echo", "b");
        expect(again.id).toBe(first.id);
        expect(other.id).not.toBe(first.id);
        expect((await s.findAgentIdentity("echo", "a"))?.id).toBe(first.id);
        expect((await s.getAgentIdentity(other.id))?.instanceId).toBe("b");
      });

      it("allows one active installation per identity and pod, and a new one after uninstall", async () => {
        const { human, pod, agent, installation } = await aWorld(s);
        expect(await s.findActiveInstallation(agent.id, pod.id)).toEqual(installation);
        await expect(anInstallation(s, agent, pod.id, human.id)).rejects.toBeInstanceOf(StoreConflictError);
        expect(await s.markInstallationUninstalled({ id: installation.id, now: T0 + 1, by: human.id })).toBe(
          true,
        );
        expect(await s.markInstallationUninstalled({ id: installation.id, now: T0 + 2, by: human.id })).toBe(
          false,
        );
        expect(await s.findActiveInstallation(agent.id, pod.id)).toBeNull();
        const again = await anInstallation(s, agent, pod.id, human.id, {
          installedBy: { kind: "agent", id: agent.id },
        });
        expect((await s.getInstallation(again.id))?.installedBy).toEqual({ kind: "agent", id: agent.id });
        expect(await s.listInstallations({ podId: pod.id })).toHaveLength(2);
        expect(await s.listInstallations({ podId: pod.id, activeOnly: true })).toHaveLength(1);
        expect(await s.listInstallations({ agentId: agent.id, activeOnly: true })).toHaveLength(1);
        const old = await s.getInstallation(installation.id);
        expect(old?.status).toBe("uninstalled");
        expect(old?.uninstalledBy).toBe(human.id);
      });
    });

    describe("runtime tokens", () => {
      it("finds a token by hash with identity, installation and issuer, and revokes it once", async () => {
        const { human, pod, agent, installation } = await aWorld(s);
        const hash = fakeHash();
        const tok = {
          id: uid("rtk"),
          hash,
          agentId: agent.id,
          installationId: installation.id,
          podId: pod.id,
          issuedBy: human.id,
          label: "laptop",
          createdAt: T0,
          lastUsedAt: null,
          revokedAt: null,
        };
        await s.insertRuntimeToken(tok);
        const auth = await s.findRuntimeTokenByHash(hash);
        expect(auth?.token).toEqual(tok);
        expect(auth?.identity.id).toBe(agent.id);
        expect(auth?.installation.id).toBe(installation.id);
        expect(auth?.issuer?.id).toBe(human.id);
        await s.touchRuntimeToken(tok.id, T0 + 9);
        expect((await s.getRuntimeToken(tok.id))?.lastUsedAt).toBe(T0 + 9);
        expect(await s.revokeRuntimeToken(tok.id, T0 + 10)).toBe(true);
        expect(await s.revokeRuntimeToken(tok.id, T0 + 11)).toBe(false);
        expect((await s.findRuntimeTokenByHash(hash))?.token.revokedAt).toBe(T0 + 10);
        expect(await s.findRuntimeTokenByHash(fakeHash())).toBeNull();
      });

      it("revokes by installation and by issuing human, counting only live tokens", async () => {
        const { human, pod, agent, installation } = await aWorld(s);
        const other = await aUser(s, { name: "other" });
        const mk = (issuedBy: string) => ({
          id: uid("rtk"),
          hash: fakeHash(),
          agentId: agent.id,
          installationId: installation.id,
          podId: pod.id,
          issuedBy,
          label: null,
          createdAt: T0,
          lastUsedAt: null,
          revokedAt: null,
        });
        for (const t of [mk(human.id), mk(human.id), mk(other.id)]) await s.insertRuntimeToken(t);
        expect(await s.listRuntimeTokens({ installationId: installation.id })).toHaveLength(3);
        expect(await s.listRuntimeTokens({ agentId: agent.id })).toHaveLength(3);
        expect(await s.revokeRuntimeTokensIssuedBy(human.id, T0 + 1)).toBe(2);
        expect(await s.revokeRuntimeTokensOfInstallation(installation.id, T0 + 2)).toBe(1);
        expect(await s.revokeRuntimeTokensOfInstallation(installation.id, T0 + 3)).toBe(0);
      });
    });

    runEventContract(store);
    runQueueVerbContract(store);
    runPollReplayContract(store);
    runCancelContract(store);
    runHistoryContract(store);

    describe("messages", () => {
      it("lists a pod's messages newest first, with limit and before, and round-trips metadata", async () => {
        const ms = [0, 1, 2, 3].map((i) =>
          aMessage("pod_a", {
            content: `m${i}`,
            createdAt: T0 + i,
            metadata: i === 2 ? { kind: "x", n: [1] } : null,
          }),
        );
        for (const m of ms) await s.insertMessage(m);
        await s.insertMessage(aMessage("pod_b"));
        const all = await s.listMessages({ podId: "pod_a", limit: 10 });
        expect(all.map((m) => m.content)).toEqual(["m3", "m2", "m1", "m0"]);
        expect(all[1]?.metadata).toEqual({ kind: "x", n: [1] });
        expect((await s.listMessages({ podId: "pod_a", limit: 2 })).map((m) => m.content)).toEqual([
          "m3",
          "m2",
        ]);
        const before = await s.listMessages({ podId: "pod_a", limit: 10, before: ms[2]!.id });
        expect(before.map((m) => m.content)).toEqual(["m1", "m0"]);
        expect(await s.getMessage(ms[0]!.id)).toEqual(ms[0]);
        expect(await s.getMessage("msg_nope")).toBeNull();
      });
    });

    describe("memory", () => {
      it("stores and replaces an agent's memory row", async () => {
        expect(await s.getMemory("agt_x")).toBeNull();
        const rec = {
          agentId: "agt_x",
          content: "c",
          sections: { soul: { content: "s", visibility: "private", updatedAt: "t", byteSize: 1 } },
          sourceRuntime: "rt",
          syncKey: "k",
          updatedAt: T0,
        };
        await s.putMemory(rec);
        expect(await s.getMemory("agt_x")).toEqual(rec);
        await s.putMemory({ ...rec, sections: {}, syncKey: null, sourceRuntime: null });
        expect(await s.getMemory("agt_x")).toEqual({
          ...rec,
          sections: {},
          syncKey: null,
          sourceRuntime: null,
        });
      });

      it("serialises concurrent read-modify-write transactions on one agent's memory", async () => {
        const bump = () =>
          s.transaction(async (tx) => {
            const cur = await tx.getMemoryForUpdate("agt_c");
            const n = Number(cur?.content ?? "0");
            await tx.putMemory({
              agentId: "agt_c",
              content: String(n + 1),
              sections: {},
              sourceRuntime: null,
              syncKey: null,
              updatedAt: T0,
            });
          });
        await Promise.all(Array.from({ length: 10 }, bump));
        expect((await s.getMemory("agt_c"))?.content).toBe("10");
      });
    });

    describe("idempotency records", () => {
      it("stores, replaces and prunes records per (agent, key)", async () => {
        const rec = {
          agentId: "agt_a",
          key: "k1",
          requestHash: "h",
          podId: "pod_a",
          status: 201,
          body: { id: "m" },
          createdAt: T0,
        };
        await s.putIdempotencyRecord(rec);
        expect(await s.getIdempotencyRecord("agt_a", "k1")).toEqual(rec);
        expect(await s.getIdempotencyRecord("agt_b", "k1")).toBeNull();
        await s.putIdempotencyRecord({ ...rec, requestHash: "h2", createdAt: T0 + 5 });
        expect((await s.getIdempotencyRecord("agt_a", "k1"))?.requestHash).toBe("h2");
        expect(await s.pruneIdempotencyRecords(T0 + 6)).toBe(1);
        expect(await s.getIdempotencyRecord("agt_a", "k1")).toBeNull();
      });
    });

    describe("decisions", () => {
      it("records exactly one answer", async () => {
        const d = {
          id: uid("dec"),
          podId: "pod_a",
          agentId: "agt_a",
          messageId: "msg_q",
          decisionClass: "strategy" as const,
          title: "t",
          question: "q?",
          options: ["a", "b"],
          threadRootId: null,
          context: "ctx",
          createdAt: T0,
          answeredAt: null,
          answeredBy: null,
          answerOption: null,
          answerMessageId: null,
        };
        await s.insertDecision(d);
        expect(await s.getDecision(d.id)).toEqual(d);
        const answers = await Promise.all([
          s.answerDecision({
            id: d.id,
            now: T0 + 1,
            answeredBy: "usr_a",
            option: "a",
            answerMessageId: "msg_1",
          }),
          s.answerDecision({
            id: d.id,
            now: T0 + 2,
            answeredBy: "usr_b",
            option: "b",
            answerMessageId: "msg_2",
          }),
        ]);
        expect(answers.filter(Boolean)).toHaveLength(1);
        expect((await s.getDecision(d.id))?.answeredAt).not.toBeNull();
        expect(await s.listDecisions({ podId: "pod_a" })).toHaveLength(1);
      });
    });

    describe("join codes", () => {
      it("marks a code used exactly once", async () => {
        const code = {
          id: uid("jc"),
          hash: fakeHash(),
          podId: "pod_a",
          agentName: null,
          scopes: ["messages:write"],
          createdBy: "usr_a",
          createdAt: T0,
          expiresAt: T0 + 1000,
          usedAt: null,
          usedByInstallationId: null,
        };
        await s.insertJoinCode(code);
        expect(await s.findJoinCodeByHash(code.hash)).toEqual(code);
        const used = await Promise.all([
          s.markJoinCodeUsed({ id: code.id, now: T0 + 1, installationId: "ins_1" }),
          s.markJoinCodeUsed({ id: code.id, now: T0 + 2, installationId: "ins_2" }),
        ]);
        expect(used.filter(Boolean)).toHaveLength(1);
        expect((await s.listJoinCodes("pod_a"))[0]?.usedAt).not.toBeNull();
      });
    });

    describe("transactions", () => {
      it("commits every write of a transaction together", async () => {
        const id = await s.transaction(async (tx) => {
          const u = await aUser(tx);
          await aPod(tx, u.id);
          return u.id;
        });
        expect(await s.getUser(id)).not.toBeNull();
        expect(await s.listPods()).toHaveLength(1);
      });

      it("rolls back every write when the transaction function rejects", async () => {
        let userId = "";
        await expect(
          s.transaction(async (tx) => {
            userId = (await aUser(tx)).id;
            await tx.enqueueEvents([
              { id: uid("evt"), agentId: "agt_r", podId: "p", type: "x", payload: {}, createdAt: T0 },
            ]);
            throw new Error("boom");
          }),
        ).rejects.toThrow("boom");
        expect(await s.getUser(userId)).toBeNull();
        expect(
          (await s.claimEvents({ agentId: "agt_r", limit: 5, leaseMs: 1000, maxAttempts: 5, now: T0 }))
            .events,
        ).toEqual([]);
      });

      it("answers ping while open", async () => {
        await expect(s.ping()).resolves.toBeUndefined();
      });
    });
  });
}
