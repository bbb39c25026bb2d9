/**
 * Provisioning goes through the services' checks as the operator: pod members are added by pods.addMember
 * (a member who is not a live user is refused, not written), and the provisioned human reads the pod's
 * messages through messages.list like any member.
 */
import { describe, expect, it } from "vitest";
import { provision } from "../../src/cli/provision.js";
import { createKernel } from "../../src/kernel.js";
import { operatorCaller } from "../../src/services/deps.js";
import { openSqliteStore } from "../../src/store/sqlite/index.js";

const kernel = () => createKernel({ store: openSqliteStore({ path: ":memory:" }) });

describe("provision", () => {
  it("adds pod members through pods.addMember and lets each read the pod", async () => {
    const k = kernel();
    const r = await provision(k, {
      users: [{ name: "owner", admin: true }, { name: "bob" }],
      pods: [{ name: "lab", owner: "owner", members: ["bob"] }],
    });
    const [owner, bob] = r.users;
    const pod = r.pods[0]!;
    const detail = await k.pods.get(operatorCaller({ id: owner!.id, name: "owner" }), pod.id);
    expect(detail.members.map((m) => [m.userId, m.role]).sort()).toEqual(
      [
        [owner!.id, "admin"],
        [bob!.id, "member"],
      ].sort(),
    );
    const asBob = { kind: "human" as const, userId: bob!.id, name: "bob", isAdmin: false, tokenId: "t" };
    await k.messages.postAsHuman(asBob, pod.id, { content: "hi" });
    expect((await k.messages.list(asBob, pod.id, { limit: 10 })).map((m) => [m.content, m.self])).toEqual([
      ["hi", true],
    ]);
    await k.close();
  });

  it("refuses a member who is not a live user, through the same check as the admin route", async () => {
    const k = kernel();
    const r = await provision(k, { users: [{ name: "owner", admin: true }], pods: [{ name: "lab" }] });
    const who = operatorCaller({ id: r.users[0]!.id, name: "owner" });
    await expect(k.pods.addMember(who, r.pods[0]!.id, { userId: "usr_nobody" })).rejects.toMatchObject({
      code: "user_not_found",
    });
    const outsider = { kind: "human" as const, userId: "usr_x", name: "x", isAdmin: false, tokenId: "t" };
    await expect(k.messages.list(outsider, r.pods[0]!.id, { limit: 10 })).rejects.toMatchObject({
      code: "pod_not_found",
    });
    await k.close();
  });
});
