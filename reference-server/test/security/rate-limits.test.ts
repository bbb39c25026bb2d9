/**
 * Request-rate limits where credentials are tested or handed out (issue 30, finding 5: 2,238 join-code
 * guesses/s and 3,500–4,500 token guesses/s were all answered, none 429). Through the app with inject(),
 * whose `remoteAddress` stands for the client address: failed authentications and join redemptions per
 * address, issuance per human — each refusal `429 rate_limited` in the registry shape with `Retry-After`.
 */
import type { LightMyRequestResponse } from "fastify";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { KernelLimits } from "../../src/config.js";
import { DEFAULT_CONFIG } from "../../src/config.js";
import { makeWorld, type World } from "../helpers/world.js";

const CAP = "/api/agents/runtime";
const BAD_TOKEN = `cm_agent_${"0".repeat(64)}`;

let w: World;
afterEach(async () => {
  vi.useRealTimers();
  await w?.app.close();
});

const world = (limits: Partial<KernelLimits>) => makeWorld({ config: { limits } });

function from(address: string, method: string, url: string, token?: string | null, body?: unknown) {
  return w.app.inject({
    method: method as "GET",
    url,
    remoteAddress: address,
    headers: token ? { authorization: `Bearer ${token}` } : {},
    ...(body !== undefined ? { payload: body as object } : {}),
  });
}

function expectRateLimited(res: LightMyRequestResponse, limit: string, max: number) {
  expect([res.statusCode, res.json().code]).toEqual([429, "rate_limited"]);
  expect(res.json().details).toEqual({ limit, max });
  expect(typeof res.json().message).toBe("string");
  const retryAfter = Number(res.headers["retry-after"]);
  expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
}

describe("failed authentications per client address", () => {
  it("refuses every further request from an address that failed authentication authFailuresPerMinute times, valid token or not", async () => {
    w = await world({ authFailuresPerMinute: 5 });
    for (let i = 0; i < 5; i++) {
      const res = await from("10.0.0.1", "GET", `${CAP}/events`, BAD_TOKEN);
      expect(res.statusCode).toBe(401);
    }
    // Refused before the token is looked at: a valid token gets the same answer, so guessing learns nothing.
    expectRateLimited(
      await from("10.0.0.1", "GET", `${CAP}/events`, w.alpha.token),
      "authFailuresPerMinute",
      5,
    );
    expectRateLimited(await from("10.0.0.1", "GET", "/api/pods", w.adminToken), "authFailuresPerMinute", 5);
    // Another address is not affected, and ops routes stay open to the refused one.
    expect((await from("10.0.0.2", "GET", `${CAP}/events`, w.alpha.token)).statusCode).toBe(200);
    expect((await from("10.0.0.1", "GET", "/healthz")).statusCode).toBe(200);
  });

  it("counts every 401 of the CAP and admin surfaces: missing, malformed, unknown and wrong-kind tokens", async () => {
    w = await world({ authFailuresPerMinute: 4 });
    const answers = [
      await from("10.0.0.3", "GET", `${CAP}/events`, null),
      await from("10.0.0.3", "GET", `${CAP}/events`, "not-a-token"),
      await from("10.0.0.3", "GET", "/api/pods", BAD_TOKEN),
      await from("10.0.0.3", "GET", "/api/pods", w.alpha.token),
    ];
    expect(answers.map((r) => r.statusCode)).toEqual([401, 401, 401, 401]);
    expectRateLimited(await from("10.0.0.3", "GET", "/api/pods", w.adminToken), "authFailuresPerMinute", 4);
  });

  it("does not count requests that authenticate, however many", async () => {
    w = await world({ authFailuresPerMinute: 2 });
    for (let i = 0; i < 20; i++)
      expect((await from("10.0.0.4", "GET", `${CAP}/events`, w.alpha.token)).statusCode).toBe(200);
    expect((await from("10.0.0.4", "GET", `${CAP}/events`, BAD_TOKEN)).statusCode).toBe(401);
    expect((await from("10.0.0.4", "GET", `${CAP}/events`, w.alpha.token)).statusCode).toBe(200);
  });

  it("lets the address in again once its one-minute window has ended", async () => {
    vi.useFakeTimers({ toFake: ["Date", "performance"] });
    w = await world({ authFailuresPerMinute: 1 });
    expect((await from("10.0.0.5", "GET", `${CAP}/events`, BAD_TOKEN)).statusCode).toBe(401);
    const refused = await from("10.0.0.5", "GET", `${CAP}/events`, w.alpha.token);
    expect(refused.statusCode).toBe(429);
    vi.advanceTimersByTime(Number(refused.headers["retry-after"]) * 1000);
    expect((await from("10.0.0.5", "GET", `${CAP}/events`, w.alpha.token)).statusCode).toBe(200);
  });

  it(`stops the audit's token guessing at the default (${DEFAULT_CONFIG.limits.authFailuresPerMinute} per minute)`, async () => {
    w = await makeWorld();
    const max = DEFAULT_CONFIG.limits.authFailuresPerMinute;
    const statuses = new Map<number, number>();
    for (let i = 0; i < max + 50; i++) {
      const res = await from("10.0.0.6", "GET", `${CAP}/events`, `cm_agent_${String(i).padStart(64, "0")}`);
      statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
    }
    expect(Object.fromEntries(statuses)).toEqual({ 401: max, 429: 50 });
  });
});

describe("join-code redemption per client address", () => {
  it("refuses the attempt after joinRedemptionsPerMinute from one address, whatever the codes", async () => {
    w = await world({ joinRedemptionsPerMinute: 3 });
    for (let i = 0; i < 3; i++) {
      const res = await from("10.0.1.1", "POST", "/api/joins/redeem", null, {
        code: `cm_join_${String(i).padStart(32, "0")}`,
        agentName: "guess",
      });
      expect([res.statusCode, res.json().code]).toEqual([404, "join_code_invalid"]);
    }
    // A real code is refused too: the limit is on attempts, checked before the code is read.
    const { code } = (
      await w.adminApi("POST", `/pods/${w.podA.id}/join-codes`, { agentName: "joiner" })
    ).json();
    expectRateLimited(
      await from("10.0.1.1", "POST", "/api/joins/redeem", null, { code }),
      "joinRedemptionsPerMinute",
      3,
    );
    const other = await from("10.0.1.2", "POST", "/api/joins/redeem", null, { code });
    expect(other.statusCode).toBe(201);
  });

  it(`stops the audit's join-code guessing at the default (${DEFAULT_CONFIG.limits.joinRedemptionsPerMinute} per minute)`, async () => {
    w = await makeWorld();
    const max = DEFAULT_CONFIG.limits.joinRedemptionsPerMinute;
    const statuses: number[] = [];
    for (let i = 0; i < max + 10; i++) {
      const res = await from("10.0.1.3", "POST", "/api/joins/redeem", null, {
        code: `cm_join_${String(i).padStart(32, "0")}`,
        agentName: "guess",
      });
      statuses.push(res.statusCode);
    }
    expect(statuses.filter((s) => s === 404)).toHaveLength(max);
    expect(statuses.slice(max)).toEqual(Array(10).fill(429));
  });
});

describe("issuance per human", () => {
  it("shares one budget between runtime tokens and join codes, per human, across addresses", async () => {
    w = await world({ issuancesPerMinute: 3 });
    const issue = (address: string, token = w.adminToken) =>
      from(address, "POST", `/api/registry/pods/${w.podA.id}/agents/alpha/runtime-tokens`, token, {});
    const joinCode = (address: string, token = w.adminToken) =>
      from(address, "POST", `/api/pods/${w.podA.id}/join-codes`, token, {});
    expect((await issue("10.0.2.1")).statusCode).toBe(201);
    expect((await joinCode("10.0.2.2")).statusCode).toBe(201);
    expect((await issue("10.0.2.3")).statusCode).toBe(201);
    expectRateLimited(await joinCode("10.0.2.4"), "issuancesPerMinute", 3);
    expectRateLimited(await issue("10.0.2.1"), "issuancesPerMinute", 3);
    // Another human has a budget of their own.
    const other = await w.kernel.users.createUser({ name: "olga", isAdmin: false });
    const pod = (await from("10.0.2.1", "POST", "/api/pods", other.token, { name: "olgas" })).json();
    const code = await from("10.0.2.1", "POST", `/api/pods/${pod.id}/join-codes`, other.token, {});
    expect(code.statusCode).toBe(201);
  });

  it("leaves the other admin routes of the same human unlimited", async () => {
    w = await world({ issuancesPerMinute: 1 });
    expect((await w.adminApi("POST", `/pods/${w.podA.id}/join-codes`, {})).statusCode).toBe(201);
    for (let i = 0; i < 10; i++) expect((await w.adminApi("GET", "/pods")).statusCode).toBe(200);
    expect((await w.adminApi("POST", `/pods/${w.podA.id}/join-codes`, {})).statusCode).toBe(429);
  });
});
