/**
 * The fixture: what `cap-kernel provision --for-conformance` prints (or what a kernel implementer writes by
 * hand) — where the kernel is, and three agents: two installed in one shared pod, a third installed only
 * in another pod, each with its runtime token. Parsing is lenient about spelling (an agent may name its
 * pod as `podId`, `pods` or `podIds`) and strict about meaning: it fails with a message saying what is
 * missing. Tokens never leave this module except through the HTTP client and redacted reproducers.
 */
import { ConfigError } from "./errors.js";

export interface FixtureAgent {
  name: string;
  instanceId?: string;
  token: string;
  pods: string[];
}

/**
 * A human of the shared pod, for the checks about what humans do (post, cancel, set an installation's
 * double-texting policy) and what operators see: kernel-specific routes outside CAP, named here with the
 * reference kernel's as defaults. The cancel feature's checks need the human to be a member of the shared
 * pod who may also install its agents and read its queue (the reference fixture's human is an admin).
 */
export interface FixtureHuman {
  token: string;
  /** Where a human posts `{content, replyToMessageId?}`; `{podId}` is replaced. */
  postPath: string;
  /** Where a human cancels an event `{reason?}`; `{podId}` and `{eventId}` are replaced. */
  cancelPath: string;
  /** Where a human changes an installation `{doubleTexting}` (PATCH); `{podId}` and `{agentName}` are replaced. */
  installationPath: string;
  /** The operator's view of a pod's queue (GET, `?limit=`); `{podId}` is replaced. */
  queuePath: string;
}

/**
 * Commands that make the kernel's store unavailable and available again, each exiting 0 once it is so:
 * the optional hook of the store-outage checks (CAP-ERR-9, CAP-ERR-12). Outside CAP, like `triggerCmd`.
 */
export interface StoreOutageHook {
  down: string;
  up: string;
}

export interface Fixture {
  urls: string[];
  leaseSeconds?: number;
  maxAttempts?: number;
  maxMessageBytes?: number;
  /** The kernel's request body limit in bytes (default assumed: 1 MiB). */
  bodyLimitBytes?: number;
  features: string[];
  triggerCmd?: string;
  agents: FixtureAgent[];
  pods: { shared: string; other: string };
  human?: FixtureHuman;
  /** A runtime token the kernel has revoked (for `token_revoked`). */
  revokedToken?: string;
  storeOutage?: StoreOutageHook;
}

/** The three agents a run needs: `a` and `b` share a pod, `c` is only in the other pod. */
export interface Cast {
  a: FixtureAgent;
  b: FixtureAgent;
  c: FixtureAgent;
  shared: string;
  other: string;
}

type Json = Record<string, unknown>;

const str = (v: unknown): string | undefined => (typeof v === "string" && v.length > 0 ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

function agentPods(a: Json): string[] {
  const pods = [
    a.podId,
    ...(Array.isArray(a.pods) ? a.pods : []),
    ...(Array.isArray(a.podIds) ? a.podIds : []),
  ];
  return [
    ...new Set(pods.map((p) => (typeof p === "object" && p ? (p as Json).id : p)).filter(str)),
  ] as string[];
}

export function parseFixture(doc: unknown, source = "fixture"): Fixture {
  if (!doc || typeof doc !== "object") throw new ConfigError(`${source}: expected a JSON object`);
  const d = doc as Json;
  const urls = [
    ...(Array.isArray(d.urls) ? d.urls.filter(str) : []),
    ...(str(d.baseUrl) ? [d.baseUrl as string] : []),
  ] as string[];
  if (!Array.isArray(d.agents)) throw new ConfigError(`${source}: "agents" must be a list`);
  const agents = d.agents.map((raw, i): FixtureAgent => {
    const a = (raw ?? {}) as Json;
    const name = str(a.name) ?? str(a.agentName);
    const token = str(a.token) ?? str(a.runtimeToken);
    if (!name || !token) throw new ConfigError(`${source}: agents[${i}] needs "name" and "token"`);
    const instanceId = str(a.instanceId);
    return { name, token, pods: agentPods(a), ...(instanceId ? { instanceId } : {}) };
  });
  const pods = (d.pods ?? {}) as Json;
  const shared = str(pods.shared) ?? inferShared(agents);
  const other =
    str(pods.other) ??
    agents
      .filter((a) => shared && !a.pods.includes(shared))
      .flatMap((a) => a.pods)
      .find((p) => p !== shared);
  if (!shared || !other)
    throw new ConfigError(
      `${source}: needs a pod shared by two agents and another pod ("pods": {"shared", "other"})`,
    );
  const features = Array.isArray(d.features) ? (d.features.filter(str) as string[]) : [];
  const fixture: Fixture = { urls: [...new Set(urls)], agents, pods: { shared, other }, features };
  const lease = num(d.leaseSeconds);
  const attempts = num(d.maxAttempts);
  const bytes = num(d.maxMessageBytes);
  const bodyLimit = num(d.bodyLimitBytes);
  if (bodyLimit !== undefined) fixture.bodyLimitBytes = bodyLimit;
  if (lease !== undefined) fixture.leaseSeconds = lease;
  if (attempts !== undefined) fixture.maxAttempts = attempts;
  if (bytes !== undefined) fixture.maxMessageBytes = bytes;
  if (str(d.triggerCmd)) fixture.triggerCmd = d.triggerCmd as string;
  const human = (d.human ?? {}) as Json;
  if (str(human.token))
    fixture.human = {
      token: human.token as string,
      postPath: str(human.postPath) ?? "/api/pods/{podId}/messages",
      cancelPath: str(human.cancelPath) ?? "/api/pods/{podId}/events/{eventId}/cancel",
      installationPath: str(human.installationPath) ?? "/api/registry/pods/{podId}/agents/{agentName}",
      queuePath: str(human.queuePath) ?? "/api/admin/pods/{podId}/queue",
    };
  if (str(d.revokedToken)) fixture.revokedToken = d.revokedToken as string;
  if (d.storeOutage !== undefined) {
    const hook = (d.storeOutage ?? {}) as Json;
    const down = str(hook.down);
    const up = str(hook.up);
    if (!down || !up)
      throw new ConfigError(`${source}: "storeOutage" needs both "down" and "up" (shell commands)`);
    fixture.storeOutage = { down, up };
  }
  castOf(fixture, source);
  return fixture;
}

function inferShared(agents: FixtureAgent[]): string | undefined {
  const count = new Map<string, number>();
  for (const a of agents) for (const p of a.pods) count.set(p, (count.get(p) ?? 0) + 1);
  return [...count].find(([, n]) => n >= 2)?.[0];
}

/** Pick the cast. An agent whose pods are not listed is assumed to be where the `pods` block says. */
export function castOf(f: Fixture, source = "fixture"): Cast {
  const { shared, other } = f.pods;
  const inShared = f.agents.filter((a) => a.pods.length === 0 || a.pods.includes(shared));
  const onlyOther = f.agents.filter((a) => a.pods.includes(other) && !a.pods.includes(shared));
  const [a, b] = inShared;
  const c = onlyOther[0];
  if (!a || !b) throw new ConfigError(`${source}: needs two agents installed in the shared pod ${shared}`);
  if (!c)
    throw new ConfigError(`${source}: needs a third agent installed in pod ${other} and not in ${shared}`);
  if (new Set([a.token, b.token, c.token]).size !== 3)
    throw new ConfigError(`${source}: agents need distinct tokens`);
  return { a, b, c, shared, other };
}
