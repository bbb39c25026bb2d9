/**
 * PostgreSQL goes away under load and comes back (issue 10, item 4; CAP-ERR-9). Two `cap-kernel serve`
 * replicas on a throwaway cluster of this test's own; an author posts mentions, a reader long-polls and
 * acks, each request through either replica; the cluster is stopped (fast shutdown) while they run and
 * started again. Asserted: no response is a 500 (503 store_unavailable with Retry-After instead, and at
 * least one was seen), /readyz is 503 while the store is down, every post answered 201 is in the pod
 * afterwards, every ack answered 200 stays acked, neither kernel process died, and both serve normally
 * within 5 s of the database accepting connections again.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clusterUnavailable, PgCluster } from "../../src/testing/index.js";
import { call, eventually, KernelProcess, type Provisioned, provision, sql, stopAll } from "./harness.js";

const CAP = "/api/agents/runtime";
const skip = clusterUnavailable ? ` (skipped: ${clusterUnavailable})` : "";

describe.skipIf(clusterUnavailable !== null)(`PostgreSQL restarting under load${skip}`, () => {
  let cluster: PgCluster;
  let world: Provisioned;

  beforeAll(async () => {
    cluster = await PgCluster.create();
    world = await provision(cluster.url, [
      "--admin",
      "ops",
      "--pod",
      "lab",
      "--agent",
      "author@lab",
      "--agent",
      "reader@lab",
    ]);
  }, 60_000);
  afterAll(async () => {
    await stopAll();
    cluster?.drop();
  });

  it("answers 503 store_unavailable (never 500) while it is down, loses nothing confirmed, and serves within 5 s of its return", async () => {
    const [author, reader] = world.agents;
    const replicas = await Promise.all([
      KernelProcess.start(cluster.url, { leaseSeconds: 2, maxAttempts: 1000 }),
      KernelProcess.start(cluster.url, { leaseSeconds: 2, maxAttempts: 1000 }),
    ]);
    const statuses = new Map<number, number>();
    const bad: string[] = [];
    let retryAfterSeen = 0;
    const posted = new Set<string>();
    const acked = new Set<string>();
    let turn = 0;
    const via = () => replicas[turn++ % 2]!.url;
    const request = async (method: string, path: string, token: string, body?: unknown) => {
      const base = via();
      const res = await call(base, method, path, token, body);
      const { text, body: json } = res;
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      if (res.status >= 500) {
        if (res.status !== 503 || json?.code !== "store_unavailable")
          bad.push(`${method} ${path} → ${res.status} ${text.slice(0, 200)}`);
        else if (res.headers.get("retry-after")) retryAfterSeen++;
      }
      return { status: res.status, body: json };
    };

    let stop = false;
    const pause = () => new Promise((r) => setTimeout(r, 20));
    const authorLoop = (async () => {
      for (let n = 0; !stop; n++) {
        const r = await request("POST", `${CAP}/pods/${author!.podId}/messages`, author!.token, {
          content: `@reader item ${n}`,
        });
        if (r.status === 201) posted.add(r.body.id);
        else await pause();
      }
    })();
    const readerLoop = (async () => {
      while (!stop) {
        const r = await request("GET", `${CAP}/events?limit=10&waitSeconds=1`, reader!.token);
        if (r.status !== 200) {
          await pause();
          continue;
        }
        for (const e of r.body.events) {
          const a = await request("POST", `${CAP}/events/${e.id}/ack`, reader!.token, {
            result: { outcome: "no_action" },
          });
          if (a.status === 200) acked.add(e.id);
        }
      }
    })();

    await eventually(() => posted.size >= 20 && acked.size >= 10, "load to build up", { timeoutMs: 60_000 });
    const down503 = () => statuses.get(503) ?? 0;
    cluster.stop();
    await eventually(() => down503() >= 10, "requests answered 503 while the database is down", {
      timeoutMs: 30_000,
    });
    for (const k of replicas) {
      const ready = await fetch(`${k.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(((await ready.json()) as { code: string }).code).toBe("store_unavailable");
    }
    cluster.start();
    const back = Date.now();
    // Serving normally: both replicas ready, and a post and a poll through each answer as usual.
    await eventually(
      async () => {
        for (const k of replicas) {
          if ((await fetch(`${k.url}/readyz`)).status !== 200) return false;
          const p = await call(k.url, "POST", `${CAP}/pods/${author!.podId}/messages`, author!.token, {
            content: "back?",
          });
          if (p.status !== 201) return false;
          posted.add((p.body as { id: string }).id);
          if ((await call(k.url, "GET", `${CAP}/memory`, reader!.token)).status !== 200) return false;
        }
        return true;
      },
      "both replicas to serve normally again",
      { timeoutMs: 5_000 },
    );
    const recoveredMs = Date.now() - back;
    const postedAtReturn = posted.size;
    await eventually(() => posted.size >= postedAtReturn + 10, "more load after the return", {
      timeoutMs: 30_000,
    });
    stop = true;
    await Promise.all([authorLoop, readerLoop]);

    expect(bad).toEqual([]);
    expect(statuses.get(500) ?? 0).toBe(0);
    expect(retryAfterSeen).toBe(down503());
    for (const k of replicas) expect(k.proc.exitCode).toBeNull();

    const messages = new Set(
      (await sql<{ id: string }>(cluster.url, "SELECT id FROM messages")).map((r) => r.id),
    );
    expect([...posted].filter((id) => !messages.has(id))).toEqual([]);
    const states = new Map(
      (await sql<{ id: string; state: string }>(cluster.url, "SELECT id, state FROM events")).map((r) => [
        r.id,
        r.state,
      ]),
    );
    expect([...acked].filter((id) => states.get(id) !== "acked")).toEqual([]);
    console.info(
      `store outage: ${posted.size} posts confirmed, ${acked.size} acks confirmed, statuses ${JSON.stringify(
        Object.fromEntries(statuses),
      )}; serving again ${recoveredMs} ms after the database returned`,
    );
  }, 180_000);
});
