/**
 * The admin surface: users and tokens, pods and roles, registry (publish, install with audit fields, runtime
 * tokens, uninstall), join codes, operator injection, dead letters and the queue view — each answer checked
 * against spec/generated/kernel-admin.openapi.yaml.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { adminValidator } from "../helpers/schemas.js";
import { makeWorld, type World } from "../helpers/world.js";

let w: World;
beforeEach(async () => {
  w = await makeWorld();
});
afterEach(async () => {
  await w.app.close();
});

const newUser = async (name: string) =>
  (await w.adminApi("POST", "/users", { name })).json() as { user: { id: string }; token: string };

describe("users", () => {
  it("lets a kernel admin create a user whose token is shown once and works", async () => {
    const res = await w.adminApi("POST", "/users", { name: "bob" });
    expect(res.statusCode).toBe(201);
    expect(adminValidator("CreatedUser")(res.json())).toBe(true);
    const me = await w.adminApi("GET", "/users/me", undefined, res.json().token);
    expect(me.json()).toMatchObject({ name: "bob", isAdmin: false });
    expect(JSON.stringify((await w.adminApi("GET", "/users")).json())).not.toContain(res.json().token);
  });

  it("forbids user management to non-admins", async () => {
    const bob = await newUser("bob");
    for (const [m, p, b] of [
      ["POST", "/users", { name: "eve" }],
      ["GET", "/users"],
      ["DELETE", `/users/${w.admin.id}`],
    ] as const) {
      const res = await w.adminApi(m, p, b, bob.token);
      expect([res.statusCode, res.json().code]).toEqual([403, "forbidden"]);
    }
  });

  it("deletes a user: their API tokens and every runtime token they issued stop working", async () => {
    const bob = await newUser("bob");
    await w.adminApi("POST", `/pods/${w.podA.id}/members`, { userId: bob.user.id, role: "admin" });
    const install = { agentName: "alpha", podId: w.podA.id, instanceId: "bobs" };
    expect((await w.adminApi("POST", "/registry/install", install, bob.token)).statusCode).toBe(201);
    const issued = await w.adminApi(
      "POST",
      `/registry/pods/${w.podA.id}/agents/alpha/runtime-tokens`,
      { label: "bob's", instanceId: "bobs" },
      bob.token,
    );
    expect(issued.json().issuedBy).toBe(bob.user.id);
    expect((await w.cap(issued.json().token, "GET", "/info")).statusCode).toBe(200);
    const del = await w.adminApi("DELETE", `/users/${bob.user.id}`);
    expect(del.json()).toEqual({ ok: true, revokedUserTokens: 1, revokedRuntimeTokens: 1 });
    expect((await w.cap(issued.json().token, "GET", "/info")).json().code).toBe("token_revoked");
    expect((await w.adminApi("GET", "/users/me", undefined, bob.token)).json().code).toBe("token_revoked");
    expect((await w.cap(w.alpha.token, "GET", "/info")).statusCode).toBe(200);
    expect((await w.adminApi("DELETE", `/users/${bob.user.id}`)).json().code).toBe("user_not_found");
  });

  it("answers the admin surface's auth errors with the shared codes", async () => {
    expect((await w.adminApi("GET", "/pods", undefined, null)).json().code).toBe("auth_required");
    expect((await w.adminApi("GET", "/pods", undefined, w.alpha.token)).json().code).toBe("token_malformed");
    expect((await w.adminApi("GET", "/pods", undefined, `cm_user_${"0".repeat(64)}`)).json().code).toBe(
      "token_unknown",
    );
  });
});

describe("pods", () => {
  it("makes the creator a pod admin and hides pods from non-members", async () => {
    const bob = await newUser("bob");
    const pod = await w.adminApi("POST", "/pods", { name: "bobs" }, bob.token);
    expect(pod.statusCode).toBe(201);
    const detail = await w.adminApi("GET", `/pods/${pod.json().id}`, undefined, bob.token);
    expect(adminValidator("PodDetail")(detail.json())).toBe(true);
    expect(detail.json().members).toEqual([expect.objectContaining({ userId: bob.user.id, role: "admin" })]);
    const eve = await newUser("eve");
    const hidden = await w.adminApi("GET", `/pods/${pod.json().id}`, undefined, eve.token);
    expect([hidden.statusCode, hidden.json().code]).toEqual([404, "pod_not_found"]);
    expect((await w.adminApi("GET", "/pods", undefined, eve.token)).json().pods).toEqual([]);
  });

  it("lets members post and read but not manage; pod admins manage", async () => {
    const bob = await newUser("bob");
    await w.adminApi("POST", `/pods/${w.podA.id}/members`, { userId: bob.user.id });
    expect(
      (await w.adminApi("POST", `/pods/${w.podA.id}/messages`, { content: "hi" }, bob.token)).statusCode,
    ).toBe(201);
    const install = await w.adminApi(
      "POST",
      "/registry/install",
      { agentName: "gamma", podId: w.podA.id },
      bob.token,
    );
    expect([install.statusCode, install.json().code]).toEqual([403, "forbidden"]);
    const eve = await newUser("eve");
    const post = await w.adminApi("POST", `/pods/${w.podA.id}/messages`, { content: "hi" }, eve.token);
    expect([post.statusCode, post.json().code]).toEqual([404, "pod_not_found"]);
  });

  it("rejects unknown fields on admin bodies", async () => {
    const res = await w.adminApi("POST", "/pods", { name: "x", owner: "someone" });
    expect([res.statusCode, res.json().code]).toEqual([400, "validation_failed"]);
    expect(res.json().details.errors[0].path).toBe("/owner");
  });
});

describe("registry", () => {
  it("records installedBy and authorizedBy as the installing human, and the issuer on tokens", async () => {
    await w.adminApi("POST", "/registry/publish", { name: "delta", description: "d", extra: { any: 1 } });
    const res = await w.adminApi("POST", "/registry/install", {
      agentName: "delta",
      podId: w.podA.id,
      instanceId: "i1",
    });
    expect(res.statusCode).toBe(201);
    expect(adminValidator("Installation")(res.json())).toBe(true);
    expect(res.json()).toMatchObject({
      installedBy: { kind: "human", id: w.admin.id },
      authorizedBy: w.admin.id,
      instanceId: "i1",
    });
    const again = await w.adminApi("POST", "/registry/install", {
      agentName: "delta",
      podId: w.podA.id,
      instanceId: "i1",
    });
    expect([again.statusCode, again.json().code]).toEqual([409, "already_installed"]);
    const missing = await w.adminApi("POST", "/registry/install", { agentName: "nobody", podId: w.podA.id });
    expect([missing.statusCode, missing.json().code]).toEqual([404, "agent_not_found"]);
  });

  it("keeps a published name to its publisher", async () => {
    const bob = await newUser("bob");
    expect((await w.adminApi("POST", "/registry/publish", { name: "bobbot" }, bob.token)).statusCode).toBe(
      200,
    );
    const eve = await newUser("eve");
    const res = await w.adminApi("POST", "/registry/publish", { name: "bobbot" }, eve.token);
    expect([res.statusCode, res.json().code]).toEqual([409, "agent_name_taken"]);
  });

  it("issues several tokens per identity, lists them without secrets, revokes one", async () => {
    const t = await w.adminApi("POST", `/registry/pods/${w.podA.id}/agents/alpha/runtime-tokens`, {
      label: "replica 2",
    });
    expect(t.statusCode).toBe(201);
    expect(adminValidator("IssuedRuntimeToken")(t.json())).toBe(true);
    expect(t.json().token).toMatch(/^cm_agent_[0-9a-f]{64}$/);
    const before = Date.now();
    expect((await w.cap(t.json().token, "GET", "/info")).statusCode).toBe(200);
    const list = await w.adminApi("GET", `/registry/pods/${w.podA.id}/agents/alpha/runtime-tokens`);
    expect(adminValidator("RuntimeTokenList")(list.json())).toBe(true);
    expect(list.json().tokens).toHaveLength(2);
    // The use just made shows at once (refreshes are written in batches; a listing writes them first).
    const used = list.json().tokens.find((x: { id: string }) => x.id === t.json().id);
    expect(Date.parse(used.lastUsedAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(JSON.stringify(list.json())).not.toContain("cm_agent_");
    const del = await w.adminApi(
      "DELETE",
      `/registry/pods/${w.podA.id}/agents/alpha/runtime-tokens/${t.json().id}`,
    );
    expect(del.json()).toEqual({ ok: true });
    expect((await w.cap(t.json().token, "GET", "/info")).json().code).toBe("token_revoked");
    expect((await w.cap(w.alpha.token, "GET", "/info")).statusCode).toBe(200);
    const other = await w.adminApi(
      "DELETE",
      `/registry/pods/${w.podA.id}/agents/beta/runtime-tokens/${w.alpha.tokenId}`,
    );
    expect(other.json().code).toBe("runtime_token_not_found");
  });

  it("uninstalls: the identity stops acting in the pod, its tokens there are revoked, open events retired", async () => {
    await w.adminApi("POST", "/registry/install", { agentName: "alpha", podId: w.podB.id });
    const viaB = (
      await w.adminApi("POST", `/registry/pods/${w.podB.id}/agents/alpha/runtime-tokens`, {})
    ).json().token;
    await w.adminApi("POST", `/pods/${w.podA.id}/messages`, { content: "@alpha pending work" });
    const res = await w.adminApi("DELETE", `/registry/pods/${w.podA.id}/agents/alpha`);
    expect(res.json()).toEqual({ ok: true, revokedTokens: 1, retiredEvents: 1 });
    expect((await w.cap(w.alpha.token, "GET", "/events")).json().code).toBe("token_revoked");
    const post = await w.cap(viaB, "POST", `/pods/${w.podA.id}/messages`, { content: "still here?" });
    expect([post.statusCode, post.json().code]).toEqual([403, "not_installed"]);
    expect((await w.cap(viaB, "GET", "/events")).json().events).toEqual([]);
    const dead = await w.adminApi("GET", `/admin/dead-letters?podId=${w.podA.id}`);
    expect(dead.json().events.map((e: { failReason: string }) => e.failReason)).toEqual(["uninstalled"]);
  });
});

describe("join codes", () => {
  it("installs the agent once (installedBy the agent, authorizedBy the code's creator) and returns a working token", async () => {
    const created = await w.adminApi("POST", `/pods/${w.podA.id}/join-codes`, {
      agentName: "newbie",
      expiresInSeconds: 600,
    });
    expect(created.statusCode).toBe(201);
    expect(adminValidator("CreatedJoinCode")(created.json())).toBe(true);
    const { code } = created.json();
    const redeemed = await w.req({ method: "POST", url: "/api/joins/redeem", body: { code } });
    expect(redeemed.statusCode).toBe(201);
    expect(adminValidator("RedeemedJoinCode")(redeemed.json())).toBe(true);
    const inst = redeemed.json().installation;
    expect(inst.installedBy.kind).toBe("agent");
    expect(inst.authorizedBy).toBe(w.admin.id);
    expect(
      (await w.cap(redeemed.json().token, "POST", `/pods/${w.podA.id}/messages`, { content: "hello" }))
        .statusCode,
    ).toBe(201);
    const reuse = await w.req({ method: "POST", url: "/api/joins/redeem", body: { code } });
    expect([reuse.statusCode, reuse.json().code]).toEqual([410, "join_code_used"]);
    const listed = await w.adminApi("GET", `/pods/${w.podA.id}/join-codes`);
    expect(JSON.stringify(listed.json())).not.toContain(code);
  });

  it("refuses expired, unknown and malformed codes with distinct codes", async () => {
    const created = await w.adminApi("POST", `/pods/${w.podA.id}/join-codes`, { expiresInSeconds: 1 });
    await new Promise((r) => setTimeout(r, 1100));
    const expired = await w.req({
      method: "POST",
      url: "/api/joins/redeem",
      body: { code: created.json().code, agentName: "late" },
    });
    expect([expired.statusCode, expired.json().code]).toEqual([410, "join_code_expired"]);
    for (const code of [`cm_join_${"0".repeat(32)}`, "hello"]) {
      const res = await w.req({ method: "POST", url: "/api/joins/redeem", body: { code, agentName: "x" } });
      expect([res.statusCode, res.json().code]).toEqual([404, "join_code_invalid"]);
    }
  });

  it("asks for agentName when the code does not name one", async () => {
    const { code } = (await w.adminApi("POST", `/pods/${w.podA.id}/join-codes`, {})).json();
    const res = await w.req({ method: "POST", url: "/api/joins/redeem", body: { code } });
    expect([res.statusCode, res.json().code]).toEqual([400, "validation_failed"]);
    const ok = await w.req({
      method: "POST",
      url: "/api/joins/redeem",
      body: { code, agentName: "picked", instanceId: "laptop" },
    });
    expect(ok.json().installation).toMatchObject({ agentName: "picked", instanceId: "laptop" });
  });
});

describe("operator tools", () => {
  it("injects any event type and payload for an installed agent", async () => {
    const res = await w.adminApi("POST", "/admin/events", {
      agentName: "alpha",
      podId: w.podA.id,
      type: "custom.thing",
      payload: { deep: { x: [1] } },
    });
    expect(res.statusCode).toBe(201);
    expect(adminValidator("EmittedEvent")(res.json())).toBe(true);
    const events = (await w.cap(w.alpha.token, "GET", "/events")).json().events;
    expect(events[0]).toMatchObject({ type: "custom.thing", payload: { deep: { x: [1] } } });
    const notThere = await w.adminApi("POST", "/admin/events", {
      agentName: "gamma",
      podId: w.podA.id,
      type: "x",
      payload: {},
    });
    expect([notThere.statusCode, notThere.json().code]).toEqual([404, "installation_not_found"]);
  });

  it("shows each agent's events with state, attempts and lease in the queue view", async () => {
    await w.adminApi("POST", `/pods/${w.podA.id}/messages`, { content: "hello all" });
    const [e] = (await w.cap(w.alpha.token, "GET", "/events")).json().events;
    const q = await w.adminApi("GET", `/admin/pods/${w.podA.id}/queue`);
    expect(adminValidator("PodQueue")(q.json())).toBe(true);
    const byAgent = Object.fromEntries(
      q.json().agents.map((a: { agentName: string; events: unknown[] }) => [a.agentName, a.events]),
    );
    expect(byAgent.alpha).toEqual([
      expect.objectContaining({ id: e.id, state: "leased", attempts: 1, leaseExpiresAt: e.leaseExpiresAt }),
    ]);
    expect(byAgent.beta).toEqual([expect.objectContaining({ state: "pending", attempts: 0 })]);
  });

  it("limits dead letters to kernel admins, or pod admins for their pod", async () => {
    const bob = await newUser("bob");
    expect((await w.adminApi("GET", "/admin/dead-letters", undefined, bob.token)).json().code).toBe(
      "forbidden",
    );
    expect(
      (await w.adminApi("GET", `/admin/dead-letters?podId=${w.podA.id}`, undefined, bob.token)).json().code,
    ).toBe("pod_not_found");
    const requeue = await w.adminApi("POST", "/admin/dead-letters/evt_nope/requeue");
    expect([requeue.statusCode, requeue.json().code]).toEqual([404, "event_not_found"]);
  });
});
