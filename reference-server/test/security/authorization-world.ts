/**
 * The world the authorization matrix runs in, built through the kernel's own HTTP surface (only the first
 * kernel admin is made through the users service, as `provision` makes it): one human or token per caller
 * kind, and the fresh targets a mutating row needs — each made on demand, so no cell's success changes
 * another cell's expectation.
 *
 * - lily: the operator (kernel admin), a member of no pod, so whatever she may do comes from isAdmin.
 * - pam: created pod A ("shared"), its admin; owns no identity the matrix concerns.
 * - olly: an admin of pod A and the only member of pod C; published `alpha` and installed alpha:default
 *   into pod A, so he owns that identity (and every alpha:<n> he installs).
 * - mia: a member (role member) of pod A.
 * - oscar: created pod B; published `gamma`, installed gamma:default there: the other pod's human, and
 *   gamma the other pod's agent.
 * - rex: created, then deleted, so his API token is a revoked user token.
 *
 * Must never reach into the store: every fact the matrix relies on is one the routes made.
 */
import type { LightMyRequestResponse } from "fastify";
import { buildApp, type KernelApp } from "../../src/http/app.js";
import type { Store } from "../../src/store/contract.js";

export const CALLER_KINDS = [
  "none",
  "malformed",
  "revoked",
  "otherPodHuman",
  "otherPodAgent",
  "podMember",
  "podAdmin",
  "identityOwner",
  "operator",
  "agent",
] as const;
export type CallerKind = (typeof CALLER_KINDS)[number];

/** Written into pod A's name, a message there and alpha's memory: no outsider's answer may contain it. */
export const MARKER = "pod-a-private-3f9c1e";

/** Rate limits far above what the matrix sends: its hundreds of refused calls come from one address. */
const UNLIMITED = {
  authFailuresPerMinute: 1e9,
  joinRedemptionsPerMinute: 1e9,
  issuancesPerMinute: 1e9,
  messagesPerMinute: 1e9,
  messageBytesPerMinute: 1e12,
};

export async function buildMatrixWorld(store: Store) {
  const app: KernelApp = await buildApp({ store, logger: false, config: { limits: UNLIMITED } });
  const { user: lilyUser, token: lily } = await app.kernel.users.createUser({ name: "lily", isAdmin: true });
  let serial = 0;
  const fresh = (prefix: string) => `${prefix}-${++serial}`;

  async function call(
    token: string | undefined,
    method: string,
    url: string,
    body?: unknown,
  ): Promise<LightMyRequestResponse> {
    return app.inject({
      method: method as "GET",
      url,
      headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
      ...(body !== undefined ? { payload: body as object } : {}),
    });
  }
  /** A setup step: must answer `status`, else the world is not what the matrix assumes. */
  async function must<T = Record<string, unknown>>(
    status: number,
    token: string | undefined,
    method: string,
    url: string,
    body?: unknown,
  ): Promise<T> {
    const res = await call(token, method, url, body);
    if (res.statusCode !== status)
      throw new Error(`setup ${method} ${url} answered ${res.statusCode} ${res.body}, not ${status}`);
    return res.json() as T;
  }
  const newUser = async (name: string) =>
    must<{ user: { id: string }; token: string }>(201, lily, "POST", "/api/users", { name });

  const pam = await newUser("pam");
  const olly = await newUser("olly");
  const mia = await newUser("mia");
  const oscar = await newUser("oscar");
  const rex = await newUser("rex");
  const podA = (await must<{ id: string }>(201, pam.token, "POST", "/api/pods", { name: `shared ${MARKER}` }))
    .id;
  const podB = (await must<{ id: string }>(201, oscar.token, "POST", "/api/pods", { name: "other" })).id;
  const podC = (await must<{ id: string }>(201, olly.token, "POST", "/api/pods", { name: "olly's" })).id;
  await must(200, pam.token, "POST", `/api/pods/${podA}/members`, { userId: olly.user.id, role: "admin" });
  await must(200, pam.token, "POST", `/api/pods/${podA}/members`, { userId: mia.user.id, role: "member" });

  const install = (token: string, agentName: string, podId: string, instanceId: string) =>
    must(201, token, "POST", "/api/registry/install", { agentName, podId, instanceId });
  const issue = (token: string, podId: string, agentName: string, instanceId = "default") =>
    must<{ id: string; token: string }>(
      201,
      token,
      "POST",
      `/api/registry/pods/${podId}/agents/${agentName}/runtime-tokens`,
      { instanceId },
    );

  await must(200, olly.token, "POST", "/api/registry/publish", { name: "alpha" });
  await install(olly.token, "alpha", podA, "default");
  const alpha = (await issue(olly.token, podA, "alpha")).token;
  const spare = await issue(olly.token, podA, "alpha");
  await must(200, olly.token, "DELETE", `/api/registry/pods/${podA}/agents/alpha/runtime-tokens/${spare.id}`);
  await must(200, oscar.token, "POST", "/api/registry/publish", { name: "gamma" });
  await install(oscar.token, "gamma", podB, "default");
  const gamma = (await issue(oscar.token, podB, "gamma")).token;
  await must(200, lily, "DELETE", `/api/users/${rex.user.id}`);

  await must(201, mia.token, "POST", `/api/pods/${podA}/messages`, { content: `for members: ${MARKER}` });
  await must(200, alpha, "PUT", "/api/agents/runtime/memory", { content: `alpha remembers ${MARKER}` });

  const tokens = {
    lily,
    pam: pam.token,
    olly: olly.token,
    mia: mia.token,
    oscar: oscar.token,
    rexDeleted: rex.token,
    alpha,
    alphaRevoked: spare.token,
    gamma,
  };

  /** The bearer token each caller kind sends; `revoked` is of the surface's own kind. */
  function tokenOf(kind: CallerKind, surface: "cap" | "admin"): string | undefined {
    switch (kind) {
      case "none":
        return undefined;
      case "malformed":
        return "not-a-token";
      case "revoked":
        return surface === "cap" ? tokens.alphaRevoked : tokens.rexDeleted;
      case "otherPodHuman":
        return tokens.oscar;
      case "otherPodAgent":
        return tokens.gamma;
      case "podMember":
        return tokens.mia;
      case "podAdmin":
        return tokens.pam;
      case "identityOwner":
        return tokens.olly;
      case "operator":
        return tokens.lily;
      case "agent":
        return tokens.alpha;
    }
  }

  const decision = () =>
    must<{ id: string }>(201, alpha, "POST", "/api/agents/runtime/decisions", {
      podId: podA,
      decisionClass: "strategy",
      title: "which way",
      question: "left or right?",
      options: ["left", "right"],
    }).then((d) => d.id);
  const standingDecision = await decision();

  /** Targets made fresh for one cell. */
  const make = {
    decision,
    /** An event of alpha:default in pod A, leased to alpha (attempts 1). */
    async leasedEvent() {
      const { id } = await must<{ id: string }>(201, lily, "POST", "/api/admin/events", {
        agentName: "alpha",
        podId: podA,
        type: "task.assigned",
        payload: { taskId: fresh("task"), title: "do" },
      });
      const polled = await must<{ events: { id: string }[] }>(
        200,
        alpha,
        "GET",
        "/api/agents/runtime/events?limit=50",
      );
      if (!polled.events.some((e) => e.id === id)) throw new Error(`setup: alpha did not lease ${id}`);
      return id;
    },
    /** A failed event in pod A (its installation was uninstalled while it was pending). */
    async deadLetter() {
      const instanceId = fresh("dl");
      await install(olly.token, "alpha", podA, instanceId);
      const { id } = await must<{ id: string }>(201, lily, "POST", "/api/admin/events", {
        agentName: "alpha",
        podId: podA,
        instanceId,
        type: "task.assigned",
        payload: { taskId: "t", title: "do" },
      });
      await must(
        200,
        olly.token,
        "DELETE",
        `/api/registry/pods/${podA}/agents/alpha?instanceId=${instanceId}`,
      );
      return id;
    },
    user: async () => (await newUser(fresh("user"))).user.id,
    async memberOfA() {
      const id = await make.user();
      await must(200, lily, "POST", `/api/pods/${podA}/members`, { userId: id, role: "member" });
      return id;
    },
    /** alpha:<n>, owned by olly: installed by him in pod C only. */
    async ollysIdentityElsewhere() {
      const instanceId = fresh("olly");
      await install(olly.token, "alpha", podC, instanceId);
      return instanceId;
    },
    /** alpha:<n>, owned by olly, installed by him in pod A. */
    async ollysInstallationInA() {
      const instanceId = fresh("in-a");
      await install(olly.token, "alpha", podA, instanceId);
      return instanceId;
    },
    /** gamma:<n>, owned by oscar, installed in pod B only. */
    async oscarsIdentity() {
      const instanceId = fresh("oscar");
      await install(oscar.token, "gamma", podB, instanceId);
      return instanceId;
    },
    /** A runtime token of alpha:default in pod A, issued by olly. */
    ollysToken: async () => (await issue(olly.token, podA, "alpha")).id,
    /** A join code for pod A created by `creator` (a token), naming `agentName` if given. */
    joinCode: async (creator: string, agentName?: string) =>
      (
        await must<{ code: string }>(201, creator, "POST", `/api/pods/${podA}/join-codes`, {
          ...(agentName ? { agentName } : {}),
        })
      ).code,
  };

  return { app, store, call, tokenOf, tokens, fresh, make, podA, podB, podC, standingDecision, lilyUser };
}

export type MatrixWorld = Awaited<ReturnType<typeof buildMatrixWorld>>;
