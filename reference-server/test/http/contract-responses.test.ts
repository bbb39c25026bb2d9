/**
 * Every response the kernel sends in a session that touches every CAP and admin route — successes and the
 * usual errors — is declared by the generated OpenAPI for its route and status, and matches that schema.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { responseValidator, toTemplate } from "../helpers/openapi.js";
import { makeWorld, type World } from "../helpers/world.js";

interface Seen {
  method: string;
  route: string;
  status: number;
  body: string;
}
const seen: Seen[] = [];
let w: World;

beforeAll(async () => {
  // A lease long enough that the renew below lands inside it on a loaded machine.
  w = await makeWorld({ config: { leaseSeconds: 5 } });
  w.app.addHook("onSend", async (req, reply, payload) => {
    if (req.routeOptions.url)
      seen.push({
        method: req.method,
        route: req.routeOptions.url,
        status: reply.statusCode,
        body: String(payload),
      });
    return payload;
  });
  const { podA, podB, alpha, beta } = w;
  const cap = w.cap;
  // CAP, successes
  await w.adminApi("POST", "/admin/events", {
    agentName: "alpha",
    podId: podA.id,
    type: "task.assigned",
    payload: { taskId: "t", title: "x" },
  });
  const root = (
    await w.adminApi("POST", `/pods/${podA.id}/messages`, { content: "@alpha hi", metadata: { kind: "k" } })
  ).json();
  const events = (await cap(alpha.token, "GET", "/events?limit=5")).json().events;
  await cap(alpha.token, "POST", `/events/${events[0].id}/renew`, { attempts: 1 });
  await cap(alpha.token, "POST", `/events/${events[0].id}/ack`, { result: { outcome: "posted" } });
  await cap(
    alpha.token,
    "POST",
    `/pods/${podA.id}/messages`,
    { content: "re", replyToMessageId: root.id },
    { "idempotency-key": "k" },
  );
  await cap(alpha.token, "GET", `/pods/${podA.id}/messages?limit=5`);
  await cap(alpha.token, "PUT", "/memory", {
    sections: {
      soul: { content: "s" },
      daily: [{ date: "2026-11-29", content: "d" }],
      relationships: [{ otherInstanceId: "i", notes: "n" }],
    },
  });
  await cap(alpha.token, "POST", "/memory/sync", { mode: "patch", sections: { shared: { content: "x" } } });
  await cap(alpha.token, "POST", "/memory/sync", { mode: "patch", sections: { shared: { content: "x" } } });
  await cap(alpha.token, "GET", "/memory");
  await cap(alpha.token, "GET", "/info");
  const dec = (
    await cap(alpha.token, "POST", "/decisions", {
      podId: podA.id,
      decisionClass: "strategy",
      title: "t",
      question: "q",
      options: ["a", "b"],
    })
  ).json();
  // CAP, errors
  await cap(null, "GET", "/events");
  await cap(alpha.token, "GET", "/events?limit=0");
  await cap(alpha.token, "POST", "/events/evt_x/ack");
  await cap(alpha.token, "POST", `/events/${events[0].id}/renew`, { attempts: 9 });
  await cap(alpha.token, "POST", "/events/evt_x/renew", { attempts: 1 });
  await cap(alpha.token, "POST", `/pods/${podB.id}/messages`, { content: "x" });
  await cap(alpha.token, "POST", `/pods/${podA.id}/messages`, { content: "y" }, { "idempotency-key": "k" });
  await cap(alpha.token, "POST", `/pods/${podA.id}/messages`, { content: "x".repeat(70_000) });
  await w.req({
    method: "POST",
    url: `/api/agents/runtime/pods/${podA.id}/messages`,
    token: alpha.token,
    payload: "x",
    headers: { "content-type": "text/plain" },
  });
  await cap(alpha.token, "GET", `/pods/${podB.id}/messages`);
  await cap(alpha.token, "PUT", "/memory", { sections: { nope: {} } });
  await cap(alpha.token, "POST", "/decisions", {
    podId: podB.id,
    decisionClass: "strategy",
    title: "t",
    question: "q",
    options: ["a", "b"],
  });
  // admin
  const bob = (await w.adminApi("POST", "/users", { name: "bob" })).json();
  await w.adminApi("GET", "/users/me");
  await w.adminApi("GET", "/users");
  const pod = (await w.adminApi("POST", "/pods", { name: "p" })).json();
  await w.adminApi("GET", "/pods");
  await w.adminApi("GET", `/pods/${podA.id}`);
  await w.adminApi("POST", `/pods/${pod.id}/members`, { userId: bob.user.id });
  await w.adminApi("DELETE", `/pods/${pod.id}/members/${bob.user.id}`);
  await w.adminApi("GET", `/pods/${podA.id}/messages`);
  await w.adminApi("GET", `/pods/${podA.id}/decisions`);
  await w.adminApi("GET", `/decisions/${dec.id}`);
  await w.adminApi("POST", `/decisions/${dec.id}/answer`, { option: "a" });
  await w.adminApi("POST", `/decisions/${dec.id}/answer`, { option: "a" });
  await w.adminApi("POST", "/registry/publish", { name: "zed" });
  await w.adminApi("GET", "/registry/agents");
  await w.adminApi("POST", "/registry/install", { agentName: "zed", podId: podA.id });
  await w.adminApi("POST", "/registry/install", { agentName: "zed", podId: podA.id });
  const tok = (
    await w.adminApi("POST", `/registry/pods/${podA.id}/agents/zed/runtime-tokens`, { label: "l" })
  ).json();
  await w.adminApi("GET", `/registry/pods/${podA.id}/agents/zed/runtime-tokens`);
  await w.adminApi("DELETE", `/registry/pods/${podA.id}/agents/zed/runtime-tokens/${tok.id}`);
  await w.adminApi("DELETE", `/registry/pods/${podA.id}/agents/zed`);
  await w.adminApi("POST", "/admin/events", { agentName: "beta", podId: podA.id, type: "x", payload: {} });
  const code = (await w.adminApi("POST", `/pods/${podA.id}/join-codes`, { agentName: "j" })).json().code;
  await w.adminApi("GET", `/pods/${podA.id}/join-codes`);
  await w.req({ method: "POST", url: "/api/joins/redeem", body: { code } });
  await w.req({ method: "POST", url: "/api/joins/redeem", body: { code } });
  await w.req({ method: "POST", url: "/api/joins/redeem", body: { code: "nope" } });
  await w.adminApi("GET", `/admin/pods/${podA.id}/queue`);
  const failed = (await w.adminApi("GET", "/admin/dead-letters")).json().events;
  await w.adminApi("POST", `/admin/dead-letters/${failed[0]?.id ?? "evt_x"}/requeue`);
  await w.adminApi("POST", "/admin/dead-letters/evt_x/requeue");
  await w.adminApi("GET", "/users", undefined, bob.token);
  await w.adminApi("DELETE", `/users/${bob.user.id}`);
  void beta;
});
afterAll(async () => {
  await w.app.close();
});

describe("responses match the generated OpenAPI", () => {
  it("declares and satisfies every (route, status) the session produced", () => {
    expect(seen.length).toBeGreaterThan(50);
    const problems: string[] = [];
    const covered = new Set<string>();
    for (const s of seen) {
      if (s.route === "/healthz" || s.route === "/readyz" || s.route === "/metrics") continue;
      const surface = s.route.startsWith("/api/agents/runtime") ? "cap" : "admin";
      const key = `${s.method} ${toTemplate(s.route)} ${s.status}`;
      covered.add(`${s.method} ${toTemplate(s.route)}`);
      try {
        const validate = responseValidator(surface, s.method, toTemplate(s.route), s.status);
        if (!validate(JSON.parse(s.body))) problems.push(`${key}: ${JSON.stringify(validate.errors)}`);
      } catch (err) {
        problems.push(`${key}: ${(err as Error).message}`);
      }
    }
    expect(problems).toEqual([]);
    expect(covered.size).toBeGreaterThanOrEqual(35);
  });
});
