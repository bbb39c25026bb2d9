/**
 * Builders for store contract tests: minimal valid rows, so each test states only what it is about.
 */
import { randomBytes } from "node:crypto";
import type {
  AgentIdentityRecord,
  InstallationRecord,
  MessageRecord,
  NewEvent,
  PodRecord,
  Store,
  StoreOps,
  UserRecord,
} from "../../src/store/contract.js";

export const T0 = 1_800_000_000_000;

export function uid(prefix: string): string {
  return `${prefix}_${randomBytes(8).toString("hex")}`;
}

export function fakeHash(): string {
  return randomBytes(32).toString("hex");
}

export async function aUser(s: StoreOps, over: Partial<UserRecord> = {}): Promise<UserRecord> {
  const user: UserRecord = {
    id: uid("usr"),
    name: "alice",
    isAdmin: false,
    createdAt: T0,
    deletedAt: null,
    ...over,
  };
  await s.insertUser(user);
  return user;
}

export async function aPod(
  s: StoreOps,
  createdBy: string,
  over: Partial<PodRecord> = {},
): Promise<PodRecord> {
  const pod: PodRecord = { id: uid("pod"), name: "pod", createdBy, createdAt: T0, ...over };
  await s.insertPod(pod);
  return pod;
}

export async function anIdentity(
  s: StoreOps,
  agentName = "echo",
  instanceId = "default",
): Promise<AgentIdentityRecord> {
  return s.ensureAgentIdentity({ id: uid("agt"), agentName, instanceId, ownerId: null, createdAt: T0 });
}

export async function anInstallation(
  s: StoreOps,
  identity: AgentIdentityRecord,
  podId: string,
  humanId: string,
  over: Partial<InstallationRecord> = {},
): Promise<InstallationRecord> {
  const inst: InstallationRecord = {
    id: uid("ins"),
    agentId: identity.id,
    agentName: identity.agentName,
    instanceId: identity.instanceId,
    podId,
    scopes: [],
    messagePosted: true,
    doubleTexting: "enqueue",
    installedBy: { kind: "human", id: humanId },
    authorizedBy: humanId,
    status: "active",
    createdAt: T0,
    uninstalledAt: null,
    uninstalledBy: null,
    ...over,
  };
  await s.insertInstallation(inst);
  return inst;
}

/** A user, a pod, an identity installed in it. */
export async function aWorld(s: StoreOps) {
  const human = await aUser(s);
  const pod = await aPod(s, human.id);
  const agent = await anIdentity(s);
  const installation = await anInstallation(s, agent, pod.id, human.id);
  return { human, pod, agent, installation };
}

export function events(agentId: string, podId: string, n: number, at = T0): NewEvent[] {
  return Array.from({ length: n }, (_, i) => ({
    id: uid("evt"),
    agentId,
    podId,
    type: "task.assigned",
    payload: { taskId: `t${i}`, title: `task ${i}`, nested: { list: [1, "two", null] } },
    createdAt: at + i,
  }));
}

export function aMessage(podId: string, over: Partial<MessageRecord> = {}): MessageRecord {
  return {
    id: uid("msg"),
    podId,
    content: "hello",
    author: { kind: "human", id: "usr_x", name: "alice" },
    replyToMessageId: null,
    metadata: null,
    traceparent: null,
    tracestate: null,
    createdAt: T0,
    ...over,
  };
}

/** Subscribes to the store's `ready` changes only (the agent ids); returns the unsubscribe. */
export function onReady(store: Store, listener: (agentId: string) => void): () => void {
  return store.changes.subscribe((c) => {
    if (c.kind === "ready") listener(c.agentId);
  });
}
