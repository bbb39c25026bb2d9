/**
 * `cap-kernel emit`, `dead-letters list|requeue`, `tokens issue|revoke`: operator commands that act on the
 * database directly (no server needed), through the same services the admin routes use. Must never create a
 * database: a missing SQLite file is an error naming it.
 */
import { type Kernel, openKernel } from "../kernel.js";
import { operatorCaller, type UserCaller } from "../services/deps.js";
import { type CommonFlags, requireExistingDb, resolveCommon } from "./settings.js";

/** Every command here acts on a kernel's existing data, so none of them creates a database. */
async function withKernel<T>(flags: CommonFlags, fn: (k: Kernel) => Promise<T>): Promise<void> {
  const s = resolveCommon(flags);
  requireExistingDb(s);
  const kernel = await openKernel({
    db: s.db,
    config: { leaseSeconds: s.leaseSeconds, maxAttempts: s.maxAttempts },
  });
  try {
    const out = await fn(kernel);
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  } finally {
    await kernel.close();
  }
}

/** A pod by id, or by name when the name is unique. */
async function podId(k: Kernel, ref: string): Promise<string> {
  const found = await k.operator.findPods(ref);
  if (found.length === 1) return found[0]!.id;
  throw new Error(found.length ? `pod name "${ref}" is ambiguous; use its id` : `no pod "${ref}"`);
}

/** A live user by id or unique name; default: the oldest kernel admin. */
async function user(k: Kernel, ref?: string): Promise<UserCaller> {
  const all = await k.operator.liveUsers();
  const found = ref
    ? all.filter((u) => u.id === ref || u.name === ref)
    : all.filter((u) => u.isAdmin).slice(0, 1);
  if (found.length !== 1)
    throw new Error(ref ? `no unique live user "${ref}"` : "no kernel admin; run provision first");
  const u = found[0]!;
  return operatorCaller(u);
}

export interface EmitFlags extends CommonFlags {
  agent: string;
  instance?: string;
  pod: string;
  type: string;
  payload?: string;
}

export const emitCommand = (f: EmitFlags) =>
  withKernel(f, async (k) => {
    const payload = f.payload === undefined ? {} : JSON.parse(f.payload);
    if (payload === null || typeof payload !== "object" || Array.isArray(payload))
      throw new Error("--payload must be a JSON object");
    return k.operator.emitDirect({
      agentName: f.agent,
      ...(f.instance ? { instanceId: f.instance } : {}),
      podId: await podId(k, f.pod),
      type: f.type,
      payload,
    });
  });

export interface DeadLetterFlags extends CommonFlags {
  pod?: string;
  agent?: string;
  instance?: string;
  limit?: string;
}

export const deadLettersListCommand = (f: DeadLetterFlags) =>
  withKernel(f, async (k) => ({
    events: await k.operator.deadLettersDirect({
      ...(f.pod ? { podId: await podId(k, f.pod) } : {}),
      ...(f.agent ? { agentName: f.agent } : {}),
      ...(f.instance ? { instanceId: f.instance } : {}),
      limit: f.limit ? Number(f.limit) : 100,
    }),
  }));

export const deadLettersRequeueCommand = (eventId: string, f: CommonFlags) =>
  withKernel(f, (k) => k.operator.requeueDirect(eventId));

export interface IssueFlags extends CommonFlags {
  pod?: string;
  agent?: string;
  instance?: string;
  user?: string;
  issuedBy?: string;
  label?: string;
}

export const tokensIssueCommand = (f: IssueFlags) =>
  withKernel(f, async (k) => {
    if (f.user && !f.agent) {
      const u = await user(k, f.user);
      const { token, record } = await k.users.issueToken(u.userId, f.label ?? "cli");
      return { kind: "user", id: record.id, userId: u.userId, token };
    }
    if (!f.agent || !f.pod)
      throw new Error("tokens issue needs --agent and --pod (or --user for a user API token)");
    const issuer = await user(k, f.issuedBy);
    const pid = await podId(k, f.pod);
    const { token, record, installation } = await k.registry.issueToken(issuer, pid, f.agent, {
      ...(f.instance ? { instanceId: f.instance } : {}),
      ...(f.label ? { label: f.label } : {}),
    });
    return {
      kind: "runtime",
      id: record.id,
      agentName: installation.agentName,
      instanceId: installation.instanceId,
      podId: pid,
      issuedBy: issuer.userId,
      token,
    };
  });

export const tokensRevokeCommand = (tokenId: string, f: CommonFlags) =>
  withKernel(f, async (k) => {
    if (await k.operator.revokeTokenDirect(tokenId)) return { ok: true, revoked: tokenId };
    throw new Error(`no live runtime token ${tokenId}`);
  });
