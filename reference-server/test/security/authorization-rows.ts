/**
 * The authorization matrix as data: one or more rows per documented route (`METHOD /template`, as the
 * OpenAPI documents spell it), each with the request one cell sends and the answer every caller kind must
 * get — a status, with the error code for a refusal. What a surface implies for every route (the 401s, a
 * human token on CAP or a runtime token on the admin surface) is added by the runner; a row names the rest.
 * Expectations follow issue 30's ownership model: an identity's owner (or a kernel admin) alone may bind it
 * into another pod or mint tokens for it; a pod's admins keep their defensive powers there.
 *
 * Must never weaken an expectation to match what the kernel does today: a failing cell is a finding.
 * Over 200 lines because it is one table; split by surface it would hide a route's neighbours.
 */
import type { LightMyRequestResponse } from "fastify";
import { CALLER_KINDS, type CallerKind, type MatrixWorld } from "./authorization-world.js";

export type Want = Partial<Record<CallerKind, string>>;
export interface Row {
  route: string;
  given: string;
  /** Called once per cell, just before the cell's request: mutating rows make their target fresh here. */
  request: (w: MatrixWorld) => Promise<{ url: string; body?: unknown }>;
  want: Want;
  /** The answer as the matrix compares it; default `status` for 2xx, `status code` otherwise. */
  observe?: (res: LightMyRequestResponse) => string;
}

const NOT_FOUND = "404 pod_not_found";
const FORBIDDEN = "403 forbidden";
const NOT_OWNED = "403 identity_not_owned";

const humans = (
  otherPodHuman: string,
  podMember: string,
  podAdmin: string,
  identityOwner: string,
  operator: string,
): Want => ({ otherPodHuman, podMember, podAdmin, identityOwner, operator });
/** Any authenticated human. */
const anyUser = (ok: string) => humans(ok, ok, ok, ok, ok);
/** Members of the pod (and kernel admins); outsiders learn nothing of the pod. */
const podRead = (ok: string) => humans(NOT_FOUND, ok, ok, ok, ok);
/** Admins of the pod (and kernel admins). */
const podManage = (ok: string) => humans(NOT_FOUND, FORBIDDEN, ok, ok, ok);
/** Admins of the pod who also own the identity concerned (and kernel admins). */
const ownerInPod = (ok: string) => humans(NOT_FOUND, FORBIDDEN, NOT_OWNED, ok, ok);
const kernelAdmin = (ok: string) => humans(FORBIDDEN, FORBIDDEN, FORBIDDEN, FORBIDDEN, ok);
/** CAP: the agent installed only in pod B, and alpha itself. */
const agents = (otherPodAgent: string, agent: string): Want => ({ otherPodAgent, agent });
/** An unauthenticated route: the Authorization header lends nothing, so every caller gets the same. */
const everyone = (want: string): Want => Object.fromEntries(CALLER_KINDS.map((k) => [k, want]));

const CAP = "/api/agents/runtime";
const at = (url: string, body?: unknown) => async () => ({ url, ...(body !== undefined ? { body } : {}) });

/** Batch acks answer 200 with a verdict per item: the item's verdict is what authorization decides. */
const firstItem = (res: LightMyRequestResponse) => {
  if (res.statusCode !== 200) return `${res.statusCode} ${res.json().code}`;
  const [item] = res.json().results as { ok: boolean; code?: string }[];
  return `200 ${item?.ok ? "ok" : item?.code}`;
};

export const ROWS: Row[] = [
  // ── CAP: the caller is the agent its token names (the runner adds none/malformed/revoked and humans) ──
  {
    route: `GET ${CAP}/events`,
    given: "a poll",
    request: at(`${CAP}/events`),
    want: agents("200", "200"),
  },
  {
    route: `POST ${CAP}/events/ack`,
    given: "a batch ack of an event leased to alpha",
    request: async (w) => ({
      url: `${CAP}/events/ack`,
      body: { acks: [{ id: await w.make.leasedEvent() }] },
    }),
    want: agents("200 event_not_found", "200 ok"),
    observe: firstItem,
  },
  ...(["ack", "renew", "release"] as const).map(
    (verb): Row => ({
      route: `POST ${CAP}/events/{id}/${verb}`,
      given: `a ${verb} of an event leased to alpha`,
      request: async (w) => ({
        url: `${CAP}/events/${await w.make.leasedEvent()}/${verb}`,
        body: verb === "ack" ? {} : { attempts: 1 },
      }),
      want: agents("404 event_not_found", "200"),
    }),
  ),
  {
    route: `POST ${CAP}/events/{id}/cancel`,
    given: "a cancel of an event leased to alpha",
    request: async (w) => ({ url: `${CAP}/events/${await w.make.leasedEvent()}/cancel`, body: {} }),
    want: agents("404 event_not_found", "200"),
  },
  {
    route: `GET ${CAP}/events/{id}/cancellation`,
    given: "a watch of a delivery leased to alpha",
    request: async (w) => ({ url: `${CAP}/events/${await w.make.leasedEvent()}/cancellation?attempts=1` }),
    want: agents("404 event_not_found", "200"),
  },
  {
    route: `GET ${CAP}/info`,
    given: "the kernel's limits",
    request: at(`${CAP}/info`),
    want: agents("200", "200"),
  },
  {
    route: `GET ${CAP}/memory`,
    given: "the caller's memory",
    request: at(`${CAP}/memory`),
    want: agents("200", "200"),
  },
  {
    route: `PUT ${CAP}/memory`,
    given: "a write of the caller's memory",
    request: at(`${CAP}/memory`, { content: "written again" }),
    want: agents("200", "200"),
  },
  {
    route: `POST ${CAP}/memory/sync`,
    given: "a patch sync of the caller's memory",
    request: at(`${CAP}/memory/sync`, { sections: { long_term: { content: "noted" } }, mode: "patch" }),
    want: agents("200", "200"),
  },
  {
    route: `POST ${CAP}/pods/{podId}/messages`,
    given: "a post into pod A",
    request: async (w) => ({ url: `${CAP}/pods/${w.podA}/messages`, body: { content: "hello" } }),
    want: agents("403 not_installed", "201"),
  },
  {
    route: `GET ${CAP}/pods/{podId}/messages`,
    given: "a read of pod A",
    request: async (w) => ({ url: `${CAP}/pods/${w.podA}/messages` }),
    want: agents("403 not_installed", "200"),
  },
  {
    route: `POST ${CAP}/decisions`,
    given: "a question in pod A",
    request: async (w) => ({
      url: `${CAP}/decisions`,
      body: { podId: w.podA, decisionClass: "strategy", title: "t", question: "q", options: ["a", "b"] },
    }),
    want: agents("403 not_installed", "201"),
  },

  // ── Admin: users ──
  { route: "GET /api/users/me", given: "the caller", request: at("/api/users/me"), want: anyUser("200") },
  { route: "GET /api/users", given: "every user", request: at("/api/users"), want: kernelAdmin("200") },
  {
    route: "POST /api/users",
    given: "a new user",
    request: async (w) => ({ url: "/api/users", body: { name: w.fresh("new") } }),
    want: kernelAdmin("201"),
  },
  {
    route: "DELETE /api/users/{userId}",
    given: "a fresh user",
    request: async (w) => ({ url: `/api/users/${await w.make.user()}` }),
    want: kernelAdmin("200"),
  },

  // ── Admin: pods, members, messages, decisions, join codes ──
  {
    route: "POST /api/pods",
    given: "a new pod",
    request: async (w) => ({ url: "/api/pods", body: { name: w.fresh("pod") } }),
    want: anyUser("201"),
  },
  { route: "GET /api/pods", given: "the caller's pods", request: at("/api/pods"), want: anyUser("200") },
  {
    route: "GET /api/pods/{podId}",
    given: "pod A",
    request: async (w) => ({ url: `/api/pods/${w.podA}` }),
    want: podRead("200"),
  },
  {
    route: "POST /api/pods/{podId}/members",
    given: "a fresh user added to pod A",
    request: async (w) => ({ url: `/api/pods/${w.podA}/members`, body: { userId: await w.make.user() } }),
    want: podManage("200"),
  },
  {
    route: "DELETE /api/pods/{podId}/members/{userId}",
    given: "a fresh member removed from pod A",
    request: async (w) => ({ url: `/api/pods/${w.podA}/members/${await w.make.memberOfA()}` }),
    want: podManage("200"),
  },
  {
    route: "POST /api/pods/{podId}/messages",
    given: "a human's post into pod A",
    request: async (w) => ({ url: `/api/pods/${w.podA}/messages`, body: { content: "hi all" } }),
    want: podRead("201"),
  },
  {
    route: "GET /api/pods/{podId}/messages",
    given: "pod A's messages",
    request: async (w) => ({ url: `/api/pods/${w.podA}/messages` }),
    want: podRead("200"),
  },
  {
    route: "GET /api/pods/{podId}/decisions",
    given: "pod A's decisions",
    request: async (w) => ({ url: `/api/pods/${w.podA}/decisions` }),
    want: podRead("200"),
  },
  {
    route: "GET /api/decisions/{decisionId}",
    given: "a decision of pod A",
    request: async (w) => ({ url: `/api/decisions/${w.standingDecision}` }),
    want: humans("404 decision_not_found", "200", "200", "200", "200"),
  },
  {
    route: "POST /api/decisions/{decisionId}/answer",
    given: "an answer to a fresh decision of pod A",
    request: async (w) => ({
      url: `/api/decisions/${await w.make.decision()}/answer`,
      body: { option: "left" },
    }),
    want: humans("404 decision_not_found", "201", "201", "201", "201"),
  },
  {
    route: "POST /api/pods/{podId}/join-codes",
    given: "a join code for pod A naming no agent",
    request: async (w) => ({ url: `/api/pods/${w.podA}/join-codes`, body: {} }),
    want: podManage("201"),
  },
  {
    route: "GET /api/pods/{podId}/join-codes",
    given: "pod A's join codes",
    request: async (w) => ({ url: `/api/pods/${w.podA}/join-codes` }),
    want: podManage("200"),
  },
  {
    route: "POST /api/joins/redeem",
    given: "pam's code naming no agent, redeemed as oscar's existing identity gamma:<n>",
    request: async (w) => {
      const instanceId = await w.make.oscarsIdentity();
      const code = await w.make.joinCode(w.tokens.pam);
      return { url: "/api/joins/redeem", body: { code, agentName: "gamma", instanceId } };
    },
    want: everyone("409 identity_exists"),
  },
  {
    route: "POST /api/joins/redeem",
    given: "pam's code naming no agent, redeemed as a new identity",
    request: async (w) => ({
      url: "/api/joins/redeem",
      body: { code: await w.make.joinCode(w.tokens.pam), agentName: w.fresh("newbie") },
    }),
    want: everyone("201"),
  },
  {
    route: "POST /api/joins/redeem",
    given: "pam's code naming alpha, redeemed as olly's existing alpha:<n>",
    request: async (w) => {
      const instanceId = await w.make.ollysIdentityElsewhere();
      const code = await w.make.joinCode(w.tokens.pam, "alpha");
      return { url: "/api/joins/redeem", body: { code, instanceId } };
    },
    want: everyone(NOT_OWNED),
  },
  {
    route: "POST /api/joins/redeem",
    given: "olly's code naming alpha, redeemed as his existing alpha:<n>",
    request: async (w) => {
      const instanceId = await w.make.ollysIdentityElsewhere();
      const code = await w.make.joinCode(w.tokens.olly, "alpha");
      return { url: "/api/joins/redeem", body: { code, instanceId } };
    },
    want: everyone("201"),
  },

  // ── Admin: registry ──
  {
    route: "GET /api/registry/agents",
    given: "the registry",
    request: at("/api/registry/agents"),
    want: anyUser("200"),
  },
  {
    route: "POST /api/registry/publish",
    given: "a new manifest for alpha, published by olly",
    request: at("/api/registry/publish", { name: "alpha", description: "republished" }),
    want: humans("409 agent_name_taken", "409 agent_name_taken", "409 agent_name_taken", "200", "200"),
  },
  {
    route: "POST /api/registry/install",
    given: "olly's existing alpha:<n> (installed in pod C) into pod A",
    request: async (w) => ({
      url: "/api/registry/install",
      body: { agentName: "alpha", podId: w.podA, instanceId: await w.make.ollysIdentityElsewhere() },
    }),
    want: ownerInPod("201"),
  },
  {
    route: "POST /api/registry/install",
    given: "a new identity alpha:<n> into pod A",
    request: async (w) => ({
      url: "/api/registry/install",
      body: { agentName: "alpha", podId: w.podA, instanceId: w.fresh("new") },
    }),
    want: podManage("201"),
  },
  {
    route: "POST /api/registry/pods/{podId}/agents/{agentName}/runtime-tokens",
    given: "a runtime token for olly's alpha:default in pod A",
    request: async (w) => ({ url: `/api/registry/pods/${w.podA}/agents/alpha/runtime-tokens`, body: {} }),
    want: ownerInPod("201"),
  },
  {
    route: "GET /api/registry/pods/{podId}/agents/{agentName}/runtime-tokens",
    given: "alpha's runtime tokens in pod A",
    request: async (w) => ({ url: `/api/registry/pods/${w.podA}/agents/alpha/runtime-tokens` }),
    want: podManage("200"),
  },
  {
    route: "DELETE /api/registry/pods/{podId}/agents/{agentName}/runtime-tokens/{tokenId}",
    given: "a fresh token of alpha in pod A, issued by olly",
    request: async (w) => ({
      url: `/api/registry/pods/${w.podA}/agents/alpha/runtime-tokens/${await w.make.ollysToken()}`,
    }),
    want: podManage("200"),
  },
  {
    route: "PATCH /api/registry/pods/{podId}/agents/{agentName}",
    given: "olly's alpha:default in pod A set to interrupt",
    request: async (w) => ({
      url: `/api/registry/pods/${w.podA}/agents/alpha`,
      body: { doubleTexting: "interrupt" },
    }),
    want: ownerInPod("200"),
  },
  {
    route: "DELETE /api/registry/pods/{podId}/agents/{agentName}",
    given: "olly's fresh alpha:<n> uninstalled from pod A",
    request: async (w) => ({
      url: `/api/registry/pods/${w.podA}/agents/alpha?instanceId=${await w.make.ollysInstallationInA()}`,
    }),
    want: podManage("200"),
  },

  // ── Admin: operator tools ──
  {
    route: "POST /api/admin/events",
    given: "an event injected for alpha in pod A",
    request: async (w) => ({
      url: "/api/admin/events",
      body: {
        agentName: "alpha",
        podId: w.podA,
        type: "task.assigned",
        payload: { taskId: "t", title: "x" },
      },
    }),
    want: podManage("201"),
  },
  {
    route: "GET /api/admin/dead-letters",
    given: "pod A's dead letters",
    request: async (w) => ({ url: `/api/admin/dead-letters?podId=${w.podA}` }),
    want: podManage("200"),
  },
  {
    route: "GET /api/admin/dead-letters",
    given: "every pod's dead letters",
    request: at("/api/admin/dead-letters"),
    want: kernelAdmin("200"),
  },
  {
    route: "POST /api/admin/dead-letters/{eventId}/requeue",
    given: "a fresh dead letter of pod A",
    request: async (w) => ({ url: `/api/admin/dead-letters/${await w.make.deadLetter()}/requeue` }),
    want: podManage("200"),
  },
  {
    route: "POST /api/pods/{podId}/events/{eventId}/cancel",
    given: "a cancel of an event of pod A leased to alpha",
    request: async (w) => ({
      url: `/api/pods/${w.podA}/events/${await w.make.leasedEvent()}/cancel`,
      body: { reason: "stop" },
    }),
    want: podRead("200"),
  },
  {
    route: "GET /api/pods/{podId}/messages/{messageId}/trace",
    given: "the trace view of a message of pod A",
    request: async (w) => {
      const [m] = await w.store.listMessages({ podId: w.podA, limit: 1 });
      return { url: `/api/pods/${w.podA}/messages/${m?.id}/trace` };
    },
    want: podRead("200"),
  },
  {
    route: "GET /api/pods/{podId}/events/{eventId}/trace",
    given: "the trace view of an event of pod A leased to alpha",
    request: async (w) => ({ url: `/api/pods/${w.podA}/events/${await w.make.leasedEvent()}/trace` }),
    want: podRead("200"),
  },
  {
    route: "GET /api/admin/pods/{podId}/queue",
    given: "pod A's queue view",
    request: async (w) => ({ url: `/api/admin/pods/${w.podA}/queue` }),
    want: podRead("200"),
  },
];
