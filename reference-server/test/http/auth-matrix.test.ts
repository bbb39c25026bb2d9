/**
 * The auth matrix: every CAP route × every way a token can be wrong → the exact status and code
 * (CAP-AUTH-1/2/5/8, CAP-ACK-5, CAP-ERR-7).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeWorld, type World } from "../helpers/world.js";

let w: World;
let betaEventId: string;
let revokedToken: string;
let uninstalledToken: string;
let orphanedToken: string;

beforeAll(async () => {
  w = await makeWorld();
  const r = await w.adminApi("POST", "/admin/events", {
    agentName: "beta",
    podId: w.podA.id,
    type: "task.assigned",
    payload: { taskId: "t", title: "x" },
  });
  betaEventId = r.json().id;
  // revoked: a second alpha token, revoked through the registry
  const extra = await w.adminApi("POST", `/registry/pods/${w.podA.id}/agents/alpha/runtime-tokens`, {
    label: "spare",
  });
  revokedToken = extra.json().token;
  await w.adminApi("DELETE", `/registry/pods/${w.podA.id}/agents/alpha/runtime-tokens/${extra.json().id}`);
  // uninstalled: an agent installed then uninstalled
  uninstalledToken = (await w.addAgent("ghost", w.podB.id)).token;
  await w.adminApi("DELETE", `/registry/pods/${w.podB.id}/agents/ghost`);
  // issuer deleted: a pod admin issues a token, then is deleted
  const bob = await w.adminApi("POST", "/users", { name: "bob" });
  await w.adminApi("POST", `/pods/${w.podB.id}/members`, { userId: bob.json().user.id, role: "admin" });
  await w.adminApi(
    "POST",
    "/registry/install",
    { agentName: "alpha", podId: w.podB.id, instanceId: "bobs" },
    bob.json().token,
  );
  const bobs = await w.adminApi(
    "POST",
    `/registry/pods/${w.podB.id}/agents/alpha/runtime-tokens`,
    { instanceId: "bobs" },
    bob.json().token,
  );
  orphanedToken = bobs.json().token;
  await w.adminApi("DELETE", `/users/${bob.json().user.id}`);
});
afterAll(async () => {
  await w.app.close();
});

const routes = () => [
  { method: "GET", path: "/events" },
  { method: "POST", path: `/events/${betaEventId}/ack`, body: {} },
  { method: "POST", path: `/events/${betaEventId}/renew`, body: { attempts: 1 } },
  { method: "POST", path: `/pods/${w.podA.id}/messages`, body: { content: "hi" } },
  { method: "GET", path: `/pods/${w.podA.id}/messages` },
  { method: "GET", path: "/memory" },
  { method: "PUT", path: "/memory", body: { content: "x" } },
  { method: "POST", path: "/memory/sync", body: { sections: {}, mode: "full" } },
  { method: "GET", path: "/info" },
  {
    method: "POST",
    path: "/decisions",
    body: { podId: w.podA.id, decisionClass: "strategy", title: "t", question: "q", options: ["a", "b"] },
  },
];

const badCredentials: [string, () => Record<string, string>, number, string][] = [
  ["no Authorization header", () => ({}), 401, "auth_required"],
  ["a Basic scheme", () => ({ authorization: "Basic YWxpY2U6c2VjcmV0" }), 401, "auth_required"],
  ["a bare token without scheme", () => ({ authorization: w.alpha.token }), 401, "auth_required"],
  ["a malformed bearer value", () => ({ authorization: "Bearer cm_agent_123" }), 401, "token_malformed"],
  [
    "an uppercase-hex token",
    () => ({ authorization: `Bearer ${w.alpha.token.toUpperCase().replace("CM_AGENT_", "cm_agent_")}` }),
    401,
    "token_malformed",
  ],
  ["a user token", () => ({ authorization: `Bearer ${w.adminToken}` }), 401, "token_malformed"],
  ["an empty bearer value", () => ({ authorization: "Bearer " }), 401, "token_malformed"],
  [
    "a well-formed token never issued",
    () => ({ authorization: `Bearer cm_agent_${"ab".repeat(32)}` }),
    401,
    "token_unknown",
  ],
  ["a revoked token", () => ({ authorization: `Bearer ${revokedToken}` }), 401, "token_revoked"],
  [
    "a token of an uninstalled installation",
    () => ({ authorization: `Bearer ${uninstalledToken}` }),
    401,
    "token_revoked",
  ],
  [
    "a token whose issuing human was deleted",
    () => ({ authorization: `Bearer ${orphanedToken}` }),
    401,
    "token_revoked",
  ],
  [
    "only the production kernel's x-commonly-agent-token header",
    () => ({ "x-commonly-agent-token": "nope" }),
    401,
    "auth_required",
  ],
];

describe("every CAP route refuses bad credentials with the exact code", () => {
  for (const [label, headers, status, code] of badCredentials) {
    it(`answers ${status} ${code} to ${label} on every route`, async () => {
      for (const r of routes()) {
        const res = await w.req({
          method: r.method,
          url: `/api/agents/runtime${r.path}`,
          body: r.body,
          headers: headers(),
        });
        expect({ route: `${r.method} ${r.path}`, status: res.statusCode, code: res.json().code }).toEqual({
          route: `${r.method} ${r.path}`,
          status,
          code,
        });
        expect(res.headers["content-type"]).toMatch(/^application\/json/);
      }
    });
  }

  it("checks the token before the body: no token and malformed JSON is 401", async () => {
    const res = await w.req({
      method: "POST",
      url: `/api/agents/runtime/pods/${w.podA.id}/messages`,
      payload: "{not json",
      headers: { "content-type": "application/json" },
    });
    expect([res.statusCode, res.json().code]).toEqual([401, "auth_required"]);
  });

  it("checks the token before the media type and the query", async () => {
    const res = await w.req({
      method: "GET",
      url: "/api/agents/runtime/events?limit=999",
      headers: { authorization: "Bearer x" },
    });
    expect([res.statusCode, res.json().code]).toEqual([401, "token_malformed"]);
  });
});

describe("a valid token acts only as its own identity", () => {
  it("refuses a valid token in the production kernel's x-commonly-agent-token header (Bearer only)", async () => {
    const res = await w.req({
      url: "/api/agents/runtime/info",
      headers: { "x-commonly-agent-token": w.alpha.token },
    });
    expect([res.statusCode, res.json().code]).toEqual([401, "auth_required"]);
  });

  it("answers 404 event_not_found to an ack or renew of another agent's event, and changes nothing", async () => {
    for (const path of [`/events/${betaEventId}/ack`, `/events/${betaEventId}/renew`]) {
      const res = await w.cap(w.alpha.token, "POST", path, path.endsWith("renew") ? { attempts: 1 } : {});
      expect([res.statusCode, res.json().code]).toEqual([404, "event_not_found"]);
    }
    expect((await w.store.getEvent(betaEventId))?.state).toBe("pending");
  });

  it("answers 404 event_not_found to an unknown event id", async () => {
    const res = await w.cap(w.alpha.token, "POST", "/events/evt_nope/ack");
    expect([res.statusCode, res.json().code]).toEqual([404, "event_not_found"]);
  });

  it("answers 403 not_installed in a pod where the agent has no installation, or that does not exist", async () => {
    for (const podId of [w.podB.id, "pod_does_not_exist"]) {
      const calls = [
        w.cap(w.alpha.token, "POST", `/pods/${podId}/messages`, { content: "hi" }),
        w.cap(w.alpha.token, "GET", `/pods/${podId}/messages`),
        w.cap(w.alpha.token, "POST", "/decisions", {
          podId,
          decisionClass: "strategy",
          title: "t",
          question: "q",
          options: ["a", "b"],
        }),
      ];
      for (const res of await Promise.all(calls))
        expect([res.statusCode, res.json().code]).toEqual([403, "not_installed"]);
    }
  });

  it("ignores agent names in the query or body (identity comes from the token)", async () => {
    await w.adminApi("POST", "/admin/events", {
      agentName: "alpha",
      podId: w.podA.id,
      type: "x.y",
      payload: {},
    });
    const res = await w.cap(w.beta.token, "GET", "/events?agentName=alpha&instanceId=default");
    expect(res.json().events.every((e: { id: string }) => e.id !== undefined)).toBe(true);
    expect(res.json().events.map((e: { type: string }) => e.type)).toEqual(["task.assigned"]);
  });

  it("answers 404 route_not_found to unknown routes with or without a valid token", async () => {
    for (const headers of [{}, { authorization: `Bearer ${w.alpha.token}` }] as Record<string, string>[]) {
      for (const [method, url] of [
        ["GET", "/api/agents/runtime/nope"],
        ["DELETE", "/api/agents/runtime/events"],
        ["GET", "/nowhere"],
      ]) {
        const res = await w.req({ method: method!, url: url!, headers });
        expect([res.statusCode, res.json().code]).toEqual([404, "route_not_found"]);
      }
    }
  });
});
