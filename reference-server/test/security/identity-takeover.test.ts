/**
 * The audit's takeover path, as a regression on both stores (CAP-AUTH-9): a plain user who administers a
 * pod of their own cannot install, mint a token for, or join-code their way into an agent identity another
 * human owns; what they can do is create an identity of their own. The victim's pod, memory and queue are
 * untouched afterwards. Also: a human who stops being a pod's admin loses the tokens and join codes they
 * issued there, and an identity's owner may bind it into every pod they administer.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgresStore } from "../../src/store/postgres/index.js";
import { freshPgSchema, pgSkipReason, pgTestUrl } from "../../src/testing/pg.js";
import { makeWorld, type World } from "../helpers/world.js";

interface Human {
  id: string;
  token: string;
}

type Opened = { world: World; drop(): Promise<void> };

describe("identity ownership on SQLite", () =>
  ownership(async () => ({ world: await makeWorld(), drop: async () => {} })));

describe.skipIf(!pgTestUrl)(`identity ownership on PostgreSQL${pgTestUrl ? "" : ` (${pgSkipReason})`}`, () =>
  ownership(async () => {
    const schema = await freshPgSchema("cap_takeover");
    const store = await openPostgresStore({ url: schema.url, poolSize: 4 });
    return { world: await makeWorld({ store }), drop: () => schema.drop() };
  }),
);

function ownership(open: () => Promise<Opened>) {
  let w: World;
  let drop: () => Promise<void>;
  let victim: Human;
  let attacker: Human;
  let victimPod: string;
  let attackerPod: string;
  let victimToken: string;
  let victimEventId: string;

  async function newHuman(name: string): Promise<Human> {
    const r = await w.adminApi("POST", "/users", { name });
    expect(r.statusCode).toBe(201);
    return { id: r.json().user.id, token: r.json().token };
  }
  const as = (h: Human, method: string, path: string, body?: unknown) =>
    w.adminApi(method, path, body, h.token);

  /** What the victim's pod, memory and queue look like, to compare before and after the attempts. */
  async function victimState() {
    const messages = await as(victim, "GET", `/pods/${victimPod}/messages`);
    const memory = await w.cap(victimToken, "GET", "/memory");
    const queue = await w.adminApi("GET", `/admin/pods/${victimPod}/queue`);
    const pod = await as(victim, "GET", `/pods/${victimPod}`);
    const { now: _now, ...rest } = queue.json();
    return { messages: messages.json(), memory: memory.json(), queue: rest, pod: pod.json() };
  }

  beforeAll(async () => {
    ({ world: w, drop } = await open());
    victim = await newHuman("victor");
    attacker = await newHuman("mallory");
    victimPod = (await as(victim, "POST", "/pods", { name: "private" })).json().id;
    attackerPod = (await as(attacker, "POST", "/pods", { name: "bait" })).json().id;
    expect((await as(victim, "POST", "/registry/publish", { name: "victim-bot" })).statusCode).toBe(200);
    const inst = await as(victim, "POST", "/registry/install", { agentName: "victim-bot", podId: victimPod });
    expect(inst.statusCode).toBe(201);
    const issued = await as(
      victim,
      "POST",
      `/registry/pods/${victimPod}/agents/victim-bot/runtime-tokens`,
      {},
    );
    expect(issued.statusCode).toBe(201);
    victimToken = issued.json().token;
    expect(
      (await as(victim, "POST", `/pods/${victimPod}/messages`, { content: "secret plans" })).statusCode,
    ).toBe(201);
    expect((await w.cap(victimToken, "PUT", "/memory", { content: "private notes" })).statusCode).toBe(200);
    const injected = await w.adminApi("POST", "/admin/events", {
      agentName: "victim-bot",
      podId: victimPod,
      type: "task.assigned",
      payload: { taskId: "t1", title: "keep me" },
    });
    victimEventId = injected.json().id;
  });
  afterAll(async () => {
    await w.app.close();
    await drop();
  });

  it("refuses a pod admin who installs someone else's identity into their own pod, and leaves the victim untouched", async () => {
    const before = await victimState();
    for (const body of [
      { agentName: "victim-bot", podId: attackerPod },
      { agentName: "victim-bot", podId: attackerPod, instanceId: "default" },
    ]) {
      const r = await as(attacker, "POST", "/registry/install", body);
      expect([r.statusCode, r.json().code]).toEqual([403, "identity_not_owned"]);
      expect(r.json().details).toEqual({ agentName: "victim-bot", instanceId: "default" });
    }
    const mint = await as(
      attacker,
      "POST",
      `/registry/pods/${attackerPod}/agents/victim-bot/runtime-tokens`,
      {},
    );
    expect([mint.statusCode, mint.json().code]).toEqual([404, "installation_not_found"]);
    expect(await victimState()).toEqual(before);
  });

  it("refuses join codes that would bind the victim's identity, named or chosen by the redeemer", async () => {
    const before = await victimState();
    const open = await as(attacker, "POST", `/pods/${attackerPod}/join-codes`, {});
    expect(open.statusCode).toBe(201);
    const chosen = await w.req({
      method: "POST",
      url: "/api/joins/redeem",
      body: { code: open.json().code, agentName: "victim-bot", instanceId: "default" },
    });
    expect([chosen.statusCode, chosen.json().code]).toEqual([409, "identity_exists"]);
    const named = await as(attacker, "POST", `/pods/${attackerPod}/join-codes`, { agentName: "victim-bot" });
    const redeemed = await w.req({
      method: "POST",
      url: "/api/joins/redeem",
      body: { code: named.json().code },
    });
    expect([redeemed.statusCode, redeemed.json().code]).toEqual([403, "identity_not_owned"]);
    // A refused redemption leaves the code unused: the pod admin can still hand it to a new agent.
    const fresh = await w.req({
      method: "POST",
      url: "/api/joins/redeem",
      body: { code: open.json().code, agentName: "victim-bot", instanceId: "mallorys" },
    });
    expect(fresh.statusCode).toBe(201);
    expect(await victimState()).toEqual(before);
  });

  it("lets the attacker create an identity of their own whose token reaches nothing of the victim's", async () => {
    const before = await victimState();
    const inst = await as(attacker, "POST", "/registry/install", {
      agentName: "victim-bot",
      podId: attackerPod,
      instanceId: "mine",
    });
    expect(inst.statusCode).toBe(201);
    expect(inst.json()).toMatchObject({
      installedBy: { kind: "human", id: attacker.id },
      authorizedBy: attacker.id,
    });
    const own = await as(attacker, "POST", `/registry/pods/${attackerPod}/agents/victim-bot/runtime-tokens`, {
      instanceId: "mine",
    });
    expect(own.statusCode).toBe(201);
    const t = own.json().token as string;
    const read = await w.cap(t, "GET", `/pods/${victimPod}/messages`);
    expect([read.statusCode, read.json().code]).toEqual([403, "not_installed"]);
    const post = await w.cap(t, "POST", `/pods/${victimPod}/messages`, { content: "as the victim" });
    expect([post.statusCode, post.json().code]).toEqual([403, "not_installed"]);
    expect((await w.cap(t, "GET", "/memory")).json().content).toBe("");
    expect((await w.cap(t, "GET", "/events")).json().events).toEqual([]);
    const ack = await w.cap(t, "POST", `/events/${victimEventId}/ack`, {});
    expect([ack.statusCode, ack.json().code]).toEqual([404, "event_not_found"]);
    expect((await w.cap(t, "PUT", "/memory", { content: "overwritten" })).statusCode).toBe(200);
    expect(await victimState()).toEqual(before);
    expect((await w.cap(victimToken, "GET", "/memory")).json().content).toBe("private notes");
  });

  it("lets an identity's owner install it into another pod they administer and mint tokens there", async () => {
    const second = (await as(victim, "POST", "/pods", { name: "second" })).json().id;
    const inst = await as(victim, "POST", "/registry/install", { agentName: "victim-bot", podId: second });
    expect(inst.statusCode).toBe(201);
    const t = await as(victim, "POST", `/registry/pods/${second}/agents/victim-bot/runtime-tokens`, {});
    expect(t.statusCode).toBe(201);
    expect((await w.cap(t.json().token, "GET", "/memory")).json().content).toBe("private notes");
  });

  it("refuses a co-admin of the victim's pod who does not own the identity a token, and lets an operator mint one", async () => {
    await as(victim, "POST", `/pods/${victimPod}/members`, { userId: attacker.id, role: "admin" });
    const path = `/registry/pods/${victimPod}/agents/victim-bot/runtime-tokens`;
    const mint = await as(attacker, "POST", path, {});
    expect([mint.statusCode, mint.json().code]).toEqual([403, "identity_not_owned"]);
    // Listing and revoking are defensive: any admin of the pod may see and cut the tokens used in it.
    expect((await as(attacker, "GET", path)).statusCode).toBe(200);
    expect((await w.adminApi("POST", path, { label: "operator" })).statusCode).toBe(201);
    await as(victim, "DELETE", `/pods/${victimPod}/members/${attacker.id}`);
  });

  it("revokes the tokens and ends the join codes a human issued in a pod when they stop being its admin", async () => {
    const bob = await newHuman("bob");
    await w.adminApi("POST", `/pods/${w.podA.id}/members`, { userId: bob.id, role: "admin" });
    await w.adminApi("POST", `/pods/${w.podB.id}/members`, { userId: bob.id, role: "admin" });
    await as(bob, "POST", "/registry/install", { agentName: "alpha", podId: w.podA.id, instanceId: "bobs" });
    await as(bob, "POST", "/registry/install", { agentName: "alpha", podId: w.podB.id, instanceId: "bobs" });
    const mint = (podId: string) =>
      as(bob, "POST", `/registry/pods/${podId}/agents/alpha/runtime-tokens`, { instanceId: "bobs" });
    const inA = (await mint(w.podA.id)).json().token as string;
    const inB = (await mint(w.podB.id)).json().token as string;
    const codeA = (await as(bob, "POST", `/pods/${w.podA.id}/join-codes`, {})).json().code as string;
    const codeB = (await as(bob, "POST", `/pods/${w.podB.id}/join-codes`, {})).json().code as string;

    // Demoted in pod A: what he issued there ends; pod B's stay.
    const demoted = await w.adminApi("POST", `/pods/${w.podA.id}/members`, {
      userId: bob.id,
      role: "member",
    });
    expect(demoted.statusCode).toBeLessThan(300);
    expect((await w.cap(inA, "GET", "/info")).json().code).toBe("token_revoked");
    const redeemA = await w.req({
      method: "POST",
      url: "/api/joins/redeem",
      body: { code: codeA, agentName: "newcomer" },
    });
    expect([redeemA.statusCode, redeemA.json().code]).toEqual([410, "join_code_expired"]);
    expect((await w.cap(inB, "GET", "/info")).statusCode).toBe(200);

    // Removed from pod B: the same there.
    expect((await w.adminApi("DELETE", `/pods/${w.podB.id}/members/${bob.id}`)).statusCode).toBeLessThan(300);
    expect((await w.cap(inB, "GET", "/info")).json().code).toBe("token_revoked");
    const redeemB = await w.req({
      method: "POST",
      url: "/api/joins/redeem",
      body: { code: codeB, agentName: "newcomer" },
    });
    expect([redeemB.statusCode, redeemB.json().code]).toEqual([410, "join_code_expired"]);
    // Other humans' tokens in those pods are untouched.
    expect((await w.cap(w.alpha.token, "GET", "/info")).statusCode).toBe(200);
    expect((await w.cap(w.gamma.token, "GET", "/info")).statusCode).toBe(200);
  });
}
