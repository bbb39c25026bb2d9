/**
 * Fixtures for the bench, made before a kernel process serves the database: agents, a pod and tokens
 * through the kernel's own CLI (`cap-kernel provision --file`), and bulk pre-loaded events through the
 * store of the package's public entry (`openStore` from dist/index.js), the same code `serve` runs on.
 *
 * Why not HTTP for the events: pre-loading 100,000 events one `emit` at a time would take longer than the
 * whole bench; the store's `enqueueEvents` takes a batch in one transaction. Must never write rows by
 * hand-written SQL: everything goes through the CLI or the store contract, so the bench measures the
 * schema the kernel really uses.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { onCleanup } from "./children.mjs";
import { kernelDist, kernelRoot } from "./kernel-process.mjs";

const run = promisify(execFile);

/**
 * Opens (and migrates) the store named by a `--db` value, exactly as `cap-kernel serve` would; `dist`: the
 * build to use (default the bench's, see kernel-process.mjs).
 */
export async function openStore(db, dist = kernelDist) {
  const { openStore: open } = await import(pathToFileURL(join(dist, "index.js")).href);
  return open(db);
}

/**
 * One admin, one pod, and installed agents each with a runtime token: `names`, or `agents` of them named
 * `${prefix}-1..n`, through the CLI of the build `dist`. Resolves with {podId, agents: [{name, agentId, token}],
 * operator: {id, token}} (the pod's owner, a kernel admin: the human of the admin routes).
 */
export async function provision(db, { agents = 0, prefix = "bench", names, dist = kernelDist }) {
  const list = names ?? Array.from({ length: agents }, (_, i) => `${prefix}-${i + 1}`);
  const pod = `${prefix}-pod`;
  const spec = {
    users: [{ name: `${prefix}-operator`, admin: true }],
    pods: [{ name: pod, owner: `${prefix}-operator` }],
    agents: list.map((name) => ({
      name,
      pods: [pod],
      installedBy: `${prefix}-operator`,
      messagePosted: false,
    })),
  };
  const dir = mkdtempSync(join(tmpdir(), "cap-bench-spec-"));
  onCleanup(() => rmSync(dir, { recursive: true, force: true })); // also when interrupted mid-provision
  let out;
  try {
    writeFileSync(join(dir, "spec.json"), JSON.stringify(spec));
    const { stdout } = await run(
      process.execPath,
      [join(dist, "bin.js"), "provision", "--db", db, "--file", join(dir, "spec.json")],
      {
        cwd: kernelRoot,
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    out = JSON.parse(stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  // Pre-loading needs each agent's identity id, which `provision` does not print.
  const store = await openStore(db, dist);
  try {
    const withIds = [];
    for (const a of out.agents) {
      const identity = await store.findAgentIdentity(a.name, a.instanceId);
      withIds.push({ name: a.name, agentId: identity.id, token: a.token });
    }
    const operator = { id: out.users[0].id, token: out.users[0].token };
    return { podId: out.pods[0].id, agents: withIds, operator };
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
export async function preload(db, { podId, agents, count, tag = "p", batch = 1000, dist = kernelDist }) {
  const store = await openStore(db, dist);
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
