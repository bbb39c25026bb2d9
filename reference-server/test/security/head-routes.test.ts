/**
 * HEAD works where GET does (issue 30, finding 6: `HEAD /console/` answered 404) — except on a GET that is
 * not a safe read. Every GET route the app registers is walked: each has a HEAD twin unless it is named in
 * NOT_SAFE, so a new GET either answers HEAD or is named here on purpose. A HEAD runs the GET's hooks
 * (authentication included) and answers its status and headers without a body; HEAD /events claims nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeWorld, type World } from "../helpers/world.js";

/** GETs that change state, and so must have no HEAD twin: a poll claims events. */
const NOT_SAFE = ["/api/agents/runtime/events"];

let w: World;
beforeAll(async () => {
  w = await makeWorld();
});
afterAll(async () => {
  await w.app.close();
});

/** Every `METHOD /path` the app registered, read from Fastify's route tree. */
function registeredRoutes(): string[] {
  const out: string[] = [];
  const stack: string[] = [];
  for (const line of w.app.printRoutes({ commonPrefix: false }).split("\n")) {
    const m = /^((?:│ {3}| {4})*)[├└]── (.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!m) continue;
    const depth = (m[1] ?? "").length / 4;
    const path = (stack[depth - 1] ?? "") + m[2];
    stack.length = depth;
    stack.push(path);
    for (const method of m[3]?.split(", ") ?? []) out.push(`${method} ${path}`);
  }
  return out;
}

describe("HEAD", () => {
  it("has a twin for every GET route but the ones that are not safe reads", () => {
    const routes = registeredRoutes();
    const gets = routes.filter((r) => r.startsWith("GET ")).map((r) => r.slice(4));
    expect(gets.length).toBeGreaterThan(20);
    const missing = gets.filter((p) => !NOT_SAFE.includes(p) && !routes.includes(`HEAD ${p}`));
    const unsafe = NOT_SAFE.filter((p) => routes.includes(`HEAD ${p}`));
    expect({ missing, unsafe }).toEqual({ missing: [], unsafe: [] });
    for (const p of NOT_SAFE) expect(gets).toContain(p);
  });

  it.each([
    ["/console/", null],
    ["/docs/", null],
    ["/healthz", null],
    ["/readyz", null],
    ["/metrics", null],
    ["/api/agents/runtime/info", "agent"],
    ["/api/agents/runtime/memory", "agent"],
    ["/api/users/me", "human"],
  ] as const)("answers HEAD %s with GET's status and headers and no body", async (url, who) => {
    const token = who === "agent" ? w.alpha.token : who === "human" ? w.adminToken : null;
    const get = await w.req({ url, token });
    const head = await w.req({ method: "HEAD", url, token });
    expect([head.statusCode, head.body]).toEqual([get.statusCode, ""]);
    expect(head.headers["content-type"]).toBe(get.headers["content-type"]);
    if (get.headers["content-security-policy"])
      expect(head.headers["content-security-policy"]).toBe(get.headers["content-security-policy"]);
  });

  it("authenticates a HEAD as its GET does", async () => {
    const res = await w.req({ method: "HEAD", url: "/api/agents/runtime/memory", token: null });
    expect([res.statusCode, res.body]).toEqual([401, ""]);
  });

  it("answers HEAD /events 404 and claims nothing", async () => {
    const injected = await w.adminApi("POST", "/admin/events", {
      agentName: "beta",
      podId: w.podA.id,
      type: "t",
      payload: {},
    });
    const head = await w.req({ method: "HEAD", url: "/api/agents/runtime/events", token: w.beta.token });
    expect(head.statusCode).toBe(404);
    const polled = (await w.cap(w.beta.token, "GET", "/events")).json().events as {
      id: string;
      attempts: number;
    }[];
    expect(polled.find((e) => e.id === injected.json().id)?.attempts).toBe(1);
  });
});
