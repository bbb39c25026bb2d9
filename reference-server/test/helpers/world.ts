/**
 * A test world: an app on an in-memory SQLite store with an admin human, pod A (agents alpha and beta),
 * pod B (agent gamma), and a runtime token each — built through the kernel's services, like `provision`.
 */
import type { LightMyRequestResponse } from "fastify";
import type { Clock } from "../../src/clock.js";
import type { KernelConfigInput } from "../../src/config.js";
import { buildApp } from "../../src/http/app.js";
import type { Store } from "../../src/store/contract.js";
import { openSqliteStore } from "../../src/store/sqlite/index.js";
import { eventually as poll } from "../../src/testing/index.js";

export interface Agent {
  name: string;
  instanceId: string;
  token: string;
  tokenId: string;
  podId: string;
  agentId: string;
}

export interface WorldOptions {
  config?: KernelConfigInput;
  clock?: Clock;
  store?: Store;
  logger?: Parameters<typeof buildApp>[0]["logger"];
  profile?: Parameters<typeof buildApp>[0]["profile"];
}

export async function makeWorld(opts: WorldOptions = {}) {
  const store = opts.store ?? openSqliteStore({ path: ":memory:" });
  const app = await buildApp({
    store,
    logger: opts.logger ?? false,
    ...(opts.config ? { config: opts.config } : {}),
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.profile ? { profile: opts.profile } : {}),
  });
  const k = app.kernel;
  const { user: admin, token: adminToken } = await k.users.createUser({ name: "lily", isAdmin: true });
  const podA = await k.pods.createPod(admin.id, "shared");
  const podB = await k.pods.createPod(admin.id, "other");
  const adminCaller = {
    kind: "human" as const,
    userId: admin.id,
    name: admin.name,
    isAdmin: true,
    tokenId: "",
  };

  async function addAgent(
    name: string,
    podId: string,
    instanceId = "default",
    messagePosted = true,
  ): Promise<Agent> {
    if (!(await store.getRegistryAgent(name))) await k.registry.publishAs(admin.id, true, { name });
    const inst = await k.registry.install(adminCaller, { agentName: name, podId, instanceId, messagePosted });
    const { token, record } = await k.registry.issueToken(adminCaller, podId, name, { instanceId });
    return { name, instanceId, token, tokenId: record.id, podId, agentId: inst.agentId };
  }

  const alpha = await addAgent("alpha", podA.id);
  const beta = await addAgent("beta", podA.id);
  const gamma = await addAgent("gamma", podB.id);

  type Req = {
    method?: string;
    url: string;
    token?: string | null;
    body?: unknown;
    headers?: Record<string, string>;
    payload?: string;
  };
  async function req(r: Req): Promise<LightMyRequestResponse> {
    const headers: Record<string, string> = { ...(r.headers ?? {}) };
    if (r.token) headers.authorization = `Bearer ${r.token}`;
    return app.inject({
      method: (r.method ?? "GET") as "GET",
      url: r.url,
      headers,
      ...(r.payload !== undefined
        ? { payload: r.payload }
        : r.body !== undefined
          ? { payload: r.body as object }
          : {}),
    });
  }
  const cap = (
    token: string | null,
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ) => req({ method, url: `/api/agents/runtime${path}`, token, body, ...(headers ? { headers } : {}) });
  const adminApi = (method: string, path: string, body?: unknown, token: string | null = adminToken) =>
    req({ method, url: `/api${path}`, token, body });

  return {
    app,
    store,
    kernel: k,
    admin,
    adminToken,
    adminCaller,
    podA,
    podB,
    alpha,
    beta,
    gamma,
    addAgent,
    req,
    cap,
    adminApi,
  };
}

export type World = Awaited<ReturnType<typeof makeWorld>>;

/** Poll `fn` until its value satisfies `cond` or the deadline passes (the kit's deadline loop). */
export async function eventually<T>(
  fn: () => Promise<T>,
  cond: (v: T) => boolean,
  timeoutMs = 5000,
): Promise<T> {
  let last: T | undefined;
  const hit = await poll(
    async () => {
      last = await fn();
      return cond(last) ? { value: last } : undefined;
    },
    "the condition holds",
    { timeoutMs, everyMs: 10 },
  ).catch((err: Error) => {
    throw new Error(`${err.message}; last value ${JSON.stringify(last)}`);
  });
  return hit.value;
}
