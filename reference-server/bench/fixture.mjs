/**
 * Provisioning for the bench, through the kernel's own services imported from the built `dist/` (the same
 * code the CLI's `provision` uses), acting on the database before a kernel process serves it: one admin
 * human, one pod, N agents each installed with a runtime token, and bulk pre-loaded events.
 *
 * Why not HTTP: pre-loading 100,000 events one `emit` at a time would take longer than the whole bench;
 * the store's `enqueueEvents` takes a batch in one transaction. Must never write rows by hand-written SQL:
 * everything goes through the store contract, so the bench measures the schema the kernel really uses.
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { kernelDist } from "./kernel-process.mjs";

const load = (rel) => import(pathToFileURL(join(kernelDist, rel)).href);

/** Opens the store named by a `--db` value (`sqlite:PATH` or `postgres://…`), migrating it. */
export async function openStore(db) {
  if (db.startsWith("sqlite:")) {
    const { openSqliteStore } = await load("store/sqlite/index.js");
    return openSqliteStore({ path: db.slice("sqlite:".length) });
  }
  const { openPostgresStore } = await load("store/postgres/index.js");
  return openPostgresStore({ url: db, poolSize: 4 });
}

/**
 * One admin, one pod, and installed agents each with a runtime token: `names`, or `agents` of them named
 * `${prefix}-1..n`. Resolves with {podId, agents: [{name, agentId, token}]}.
 */
export async function provision(db, { agents = 0, prefix = "bench", names }) {
  const { createKernel } = await load("kernel.js");
  const store = await openStore(db);
  try {
    const k = createKernel({ store });
    const { user } = await k.users.createUser({ name: `${prefix}-operator`, isAdmin: true });
    const pod = await k.pods.createPod(user.id, `${prefix}-pod`);
    const out = [];
    for (const name of names ?? Array.from({ length: agents }, (_, i) => `${prefix}-${i + 1}`)) {
      await k.registry.publishAs(user.id, true, { name, description: "bench agent" });
      const issued = await store.transaction(async (tx) => {
        const inst = await k.registry.installIn(
          tx,
          { agentName: name, podId: pod.id, messagePosted: false },
          { kind: "human", id: user.id },
          user.id,
        );
        return k.tokens.issueRuntimeToken(tx, inst, user.id, "bench");
      });
      const identity = await store.findAgentIdentity(name, "default");
      out.push({ name, agentId: identity.id, token: issued.token });
    }
    return { podId: pod.id, agents: out };
  } finally {
    await store.close();
  }
}

/** A `message.posted`-shaped payload of a typical short chat line (~300 bytes as JSON). */
export function samplePayload(podId, n) {
  return {
    messageId: `msg_bench${String(n).padStart(12, "0")}`,
    podId,
    content: `Event ${n}: could you look at the failing build on main and tell me whether it is the new migration?`,
    author: { id: "usr_bench000000000000", kind: "human", name: "bench-operator" },
  };
}

/**
 * Enqueues `count` pending `message.posted` events spread round-robin over `agents`, in batches of 1,000
 * (one transaction each); `tag` keeps ids unique across pre-loads of one database. Resolves with the seconds taken.
 */
export async function preload(db, { podId, agents, count, tag = "p", batch = 1000 }) {
  const store = await openStore(db);
  const started = performance.now();
  try {
    const t0 = Date.now();
    for (let done = 0; done < count; done += batch) {
      const rows = [];
      for (let n = done; n < Math.min(count, done + batch); n++) {
        rows.push({
          id: `evt_bench${tag}${String(n).padStart(9, "0")}`,
          agentId: agents[n % agents.length].agentId,
          podId,
          type: "message.posted",
          payload: samplePayload(podId, n),
          createdAt: t0,
        });
      }
      await store.enqueueEvents(rows);
    }
  } finally {
    await store.close();
  }
  return (performance.now() - started) / 1000;
}
