/**
 * `cap-kernel provision`: create users, pods, agents, installations and tokens directly in the database,
 * from flags or a small JSON file, and print what was created (tokens appear once, here). With
 * --for-conformance, print the fixture the conformance suite reads.
 */
import { readFileSync } from "node:fs";
import { type Kernel, openKernel } from "../kernel.js";
import { newId } from "../secrets.js";
import { operatorCaller } from "../services/deps.js";
import { announceNewDb, baseUrlFor, type CommonFlags, resolveCommon } from "./settings.js";

export interface ProvisionSpec {
  users?: { name: string; admin?: boolean }[];
  pods?: { name: string; owner?: string; members?: string[] }[];
  agents?: {
    name: string;
    instanceId?: string;
    pods: string[];
    installedBy?: string;
    messagePosted?: boolean;
  }[];
}

export interface ProvisionFlags extends CommonFlags {
  file?: string;
  admin?: string;
  pod?: string[];
  agent?: string[];
  forConformance?: boolean;
  baseUrl?: string;
}

/** `name[:instance]@pod[,pod…]` → an agent entry. */
function parseAgentFlag(spec: string) {
  const m = /^([^:@]+)(?::([^@]+))?@(.+)$/.exec(spec);
  if (!m) throw new Error(`--agent must look like name[:instanceId]@pod[,pod…], got "${spec}"`);
  return { name: m[1]!, ...(m[2] ? { instanceId: m[2] } : {}), pods: m[3]!.split(",") };
}

export function specFromFlags(flags: ProvisionFlags): ProvisionSpec {
  if (flags.file) return JSON.parse(readFileSync(flags.file, "utf8")) as ProvisionSpec;
  const admin = flags.admin ?? "admin";
  return {
    users: [{ name: admin, admin: true }],
    pods: (flags.pod ?? []).map((name) => ({ name, owner: admin })),
    agents: (flags.agent ?? []).map(parseAgentFlag),
  };
}

export async function provision(kernel: Kernel, spec: ProvisionSpec) {
  const users = new Map<string, { id: string; name: string; isAdmin: boolean; token: string }>();
  for (const u of spec.users ?? []) {
    const { user, token } = await kernel.users.createUser({
      name: u.name,
      isAdmin: u.admin ?? false,
      tokenLabel: "provision",
    });
    users.set(u.name, { id: user.id, name: user.name, isAdmin: user.isAdmin, token });
  }
  const first = [...users.values()][0];
  const userNamed = (name?: string) => {
    const u = name ? users.get(name) : first;
    if (!u) throw new Error(`provision: unknown user "${name ?? "(none created)"}"`);
    return u;
  };
  const pods = new Map<string, { id: string; name: string }>();
  for (const p of spec.pods ?? []) {
    const owner = userNamed(p.owner);
    const pod = await kernel.pods.createPod(owner.id, p.name);
    for (const m of p.members ?? [])
      await kernel.pods.addMember(operatorCaller(owner), pod.id, { userId: userNamed(m).id, role: "member" });
    pods.set(p.name, { id: pod.id, name: pod.name });
  }
  const agents: {
    name: string;
    instanceId: string;
    podId: string;
    pod: string;
    token: string;
    tokenId: string;
  }[] = [];
  for (const a of spec.agents ?? []) {
    const by = userNamed(a.installedBy);
    if (!(await kernel.registry.get(a.name))) await kernel.registry.publishAs(by.id, true, { name: a.name });
    for (const podName of a.pods) {
      const pod =
        pods.get(podName) ?? (await kernel.operator.findPods(podName)).find((p) => p.id === podName);
      if (!pod) throw new Error(`provision: unknown pod "${podName}"`);
      const who = operatorCaller(by);
      await kernel.registry.install(who, {
        agentName: a.name,
        podId: pod.id,
        instanceId: a.instanceId ?? "default",
        ...(a.messagePosted === false ? { messagePosted: false } : {}),
      });
      const { token, record } = await kernel.registry.issueToken(who, pod.id, a.name, {
        instanceId: a.instanceId ?? "default",
        label: "provision",
      });
      agents.push({
        name: a.name,
        instanceId: a.instanceId ?? "default",
        podId: pod.id,
        pod: pod.name,
        token,
        tokenId: record.id,
      });
    }
  }
  return {
    users: [...users.values()].map(({ id, name, isAdmin, token }) => ({ id, name, isAdmin, token })),
    pods: [...pods.values()],
    agents,
  };
}

/** The conformance fixture: two agents sharing pod "shared", a third only in pod "other", a human. */
export async function provisionConformance(kernel: Kernel, baseUrl: string) {
  const suffix = newId("x").slice(2, 8);
  const names = [`conf-a-${suffix}`, `conf-b-${suffix}`, `conf-c-${suffix}`];
  const r = await provision(kernel, {
    users: [{ name: `conformance-${suffix}`, admin: true }],
    pods: [{ name: `shared-${suffix}` }, { name: `other-${suffix}` }],
    agents: [
      { name: names[0]!, pods: [`shared-${suffix}`] },
      { name: names[1]!, pods: [`shared-${suffix}`] },
      { name: names[2]!, pods: [`other-${suffix}`] },
    ],
  });
  const human = r.users[0]!;
  // An extra token of the first agent, revoked at once, so token_revoked can be checked black-box.
  const who = operatorCaller(human);
  const first = r.agents[0]!;
  const extra = await kernel.registry.issueToken(who, first.podId, first.name, {
    label: "revoked for conformance",
  });
  await kernel.registry.revokeToken(who, first.podId, first.name, extra.record.id);
  return {
    baseUrl,
    leaseSeconds: Math.max(1, Math.ceil(kernel.config.leaseSeconds)),
    maxAttempts: kernel.config.maxAttempts,
    agents: r.agents.map(({ name, instanceId, token, podId }) => ({ name, instanceId, token, podId })),
    pods: { shared: r.pods[0]!.id, other: r.pods[1]!.id },
    human: { token: human.token, id: human.id, name: human.name },
    revokedToken: extra.token,
  };
}

export async function provisionCommand(flags: ProvisionFlags): Promise<void> {
  const s = resolveCommon(flags);
  // A bad --file or --agent fails before any database is created.
  const spec = flags.forConformance ? null : specFromFlags(flags);
  announceNewDb(s);
  const kernel = await openKernel({
    db: s.db,
    config: { leaseSeconds: s.leaseSeconds, maxAttempts: s.maxAttempts },
  });
  try {
    const port = Number(process.env.CAP_PORT ?? 7070);
    const baseUrl = flags.baseUrl ?? baseUrlFor(process.env.CAP_HOST ?? "127.0.0.1", port);
    const out = spec === null ? await provisionConformance(kernel, baseUrl) : await provision(kernel, spec);
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  } finally {
    await kernel.close();
  }
}
