/**
 * The accelerators (src/store/sqlite/accelerators.ts, src/store/postgres/accelerators.ts): each list names
 * what is applied, each accelerator says what it must never do and has its own test file, and each one —
 * applied alone on the plain store — changes what it claims to change and nothing the contract suite sees
 * (the suite itself runs on the plain and the accelerated store of both dialects).
 */

import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import type { Store } from "../../src/store/contract.js";
import {
  ackBatcherAccelerator,
  claimFloorsAccelerator,
  POSTGRES_ACCELERATORS,
} from "../../src/store/postgres/accelerators.js";
import { openPostgresStore } from "../../src/store/postgres/index.js";
import type { PostgresAccelerator } from "../../src/store/postgres/kit.js";
import { SQLITE_ACCELERATORS } from "../../src/store/sqlite/accelerators.js";
import { assembleSqliteStore } from "../../src/store/sqlite/assemble.js";
import { groupCommitAccelerator } from "../../src/store/sqlite/group-commit.js";
import { idleAgentsAccelerator } from "../../src/store/sqlite/idle-agents.js";
import { installationCacheAccelerator } from "../../src/store/sqlite/installation-cache.js";
import type { SqliteAccelerator } from "../../src/store/sqlite/kit.js";
import { freshPgSchema, pgSkipReason, pgTestUrl } from "../../src/testing/pg.js";
import { aWorld, events, T0 } from "./contract-fixtures.js";

const here = dirname(fileURLToPath(import.meta.url));
const src = join(here, "..", "..", "src");

/** Each accelerator: its module and the test file that is its own test. */
const OWN = [
  {
    name: "installation-cache",
    module: "store/sqlite/installation-cache.ts",
    test: "store/sqlite-read-caches.test.ts",
  },
  { name: "idle-agents", module: "store/sqlite/idle-agents.ts", test: "store/sqlite-read-caches.test.ts" },
  { name: "group-commit", module: "store/sqlite/group-commit.ts", test: "store/group-commit-suite.ts" },
  {
    name: "claim-floors",
    module: "store/postgres/claim-floors.ts",
    test: "store/postgres-claim-floors.test.ts",
  },
  { name: "ack-batcher", module: "store/postgres/ack-batcher.ts", test: "store/postgres-acks.test.ts" },
  { name: "token cache", module: "services/token-cache.ts", test: "services/token-cache.test.ts" },
];

describe("the accelerator lists", () => {
  it("name what each dialect applies, in order", () => {
    expect(SQLITE_ACCELERATORS.map((a) => a.name)).toEqual([
      "installation-cache",
      "idle-agents",
      "group-commit",
    ]);
    expect(POSTGRES_ACCELERATORS.map((a) => a.name)).toEqual(["claim-floors", "ack-batcher"]);
  });

  it.each(OWN)("$name says what it must never do and has its own test ($test)", ({ module, test }) => {
    expect(readFileSync(join(src, module), "utf8")).toMatch(/^ \* Must never:/m);
    const testFile = join(here, "..", test);
    expect(existsSync(testFile), testFile).toBe(true);
    const stem = module.split("/").pop()!.replace(/\.ts$/, "");
    expect(readFileSync(testFile, "utf8")).toContain(stem);
  });
});

/** An accelerator that counts the calls reaching the ops below it (applied first, it sees the plain ones). */
function countingSqlite(names: string[]) {
  const calls = new Map<string, number>();
  const accelerator: SqliteAccelerator = {
    name: "count",
    apply(kit) {
      const sync = kit.sync as unknown as Record<string, (...a: unknown[]) => unknown>;
      for (const n of names) {
        const inner = sync[n]!;
        sync[n] = (...a) => {
          calls.set(n, (calls.get(n) ?? 0) + 1);
          return inner(...a);
        };
      }
      const begin = kit.bodies.begin;
      kit.bodies.begin = () => {
        calls.set("BEGIN", (calls.get("BEGIN") ?? 0) + 1);
        begin();
      };
    },
  };
  return { calls, accelerator };
}

/** Resolves after `n` turns of the event loop (what a grouped write waits for). */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
}

const claim = (s: Store, agentId: string, now = T0) =>
  s.claimEvents({ agentId, limit: 10, leaseMs: 30_000, maxAttempts: 5, now });

describe("sqlite accelerators, each alone on the plain store", () => {
  it.each([
    { with: [], reads: 3 },
    { with: [installationCacheAccelerator], reads: 1 },
  ])("installation-cache: $reads reads for three look-ups of one active installation", async (c) => {
    const spy = countingSqlite(["findActiveInstallation"]);
    const store = assembleSqliteStore({ path: ":memory:" }, [spy.accelerator, ...c.with]);
    const { agent, pod, installation } = await aWorld(store);
    for (let i = 0; i < 3; i++)
      expect((await store.findActiveInstallation(agent.id, pod.id))?.id).toBe(installation.id);
    expect(spy.calls.get("findActiveInstallation")).toBe(c.reads);
    await store.close();
  });

  it.each([
    { with: [], answeredWhileLocked: false },
    { with: [idleAgentsAccelerator], answeredWhileLocked: true },
  ])(
    "idle-agents: an idle agent's claim answered while a transaction holds the store: $answeredWhileLocked",
    async (c) => {
      const store = assembleSqliteStore({ path: ":memory:" }, c.with);
      const { agent } = await aWorld(store);
      expect((await claim(store, agent.id)).events).toEqual([]);
      let open!: () => void;
      const tx = store.transaction(() => new Promise<void>((r) => (open = r)));
      await turns(3);
      let answered = false;
      const second = claim(store, agent.id).then((r) => {
        answered = true;
        return r;
      });
      await turns(3);
      expect(answered).toBe(c.answeredWhileLocked);
      open();
      await tx;
      expect((await second).events).toEqual([]);
      await store.close();
    },
  );

  it.each([
    { with: [], begins: 2, ackedBeforeATurn: true },
    { with: [groupCommitAccelerator], begins: 1, ackedBeforeATurn: false },
  ])("group-commit: three acks and two transactions of one turn open $begins transaction(s)", async (c) => {
    const spy = countingSqlite([]);
    const store = assembleSqliteStore({ path: ":memory:" }, [spy.accelerator, ...c.with]);
    const { agent, pod } = await aWorld(store);
    await store.enqueueEvents(events(agent.id, pod.id, 3));
    const held = (await claim(store, agent.id)).events;
    spy.calls.clear();
    let acked = 0;
    const writes = [
      ...held.map((e) =>
        store.ackEvent({ agentId: agent.id, eventId: e.id, now: T0, result: null }).then(() => acked++),
      ),
      store.transaction(async (tx) => tx.getAgentIdentity(agent.id)),
      store.transaction(async (tx) => tx.getAgentIdentity(agent.id)),
    ];
    for (let i = 0; i < 10; i++) await Promise.resolve();
    expect(acked === held.length).toBe(c.ackedBeforeATurn);
    await Promise.all(writes);
    expect(acked).toBe(3);
    expect(spy.calls.get("BEGIN") ?? 0).toBe(c.begins);
    await store.close();
  });
});

describe.skipIf(!pgTestUrl)(
  `postgres accelerators, each alone on the plain store${pgTestUrl ? "" : ` (${pgSkipReason})`}`,
  () => {
    const drops: (() => Promise<void>)[] = [];
    afterAll(async () => {
      for (const drop of drops) await drop();
    });
    const open = async (accelerators: PostgresAccelerator[]) => {
      const db = await freshPgSchema("cap_accel");
      drops.push(db.drop);
      return openPostgresStore({ url: db.url, accelerators });
    };

    it.each([
      { with: [], from: "0" },
      { with: [claimFloorsAccelerator], from: "the previous claim's lowest pending seq" },
    ])("claim-floors: a claim after a partial claim starts from $from", async (c) => {
      const starts: number[] = [];
      const spy: PostgresAccelerator = {
        name: "count",
        apply(kit) {
          const floors = kit.floors;
          kit.floors = {
            ...floors,
            start: (agentId, now) => {
              const s = floors.start(agentId, now);
              starts.push(s.from);
              return s;
            },
            learn: (agentId, start, seq) => floors.learn(agentId, start, seq),
          };
        },
      };
      const store = await open([...c.with, spy]);
      const { agent, pod } = await aWorld(store);
      await store.enqueueEvents(events(agent.id, pod.id, 15));
      await store.claimEvents({ agentId: agent.id, limit: 10, leaseMs: 30_000, maxAttempts: 5, now: T0 });
      const rest = await store.claimEvents({
        agentId: agent.id,
        limit: 10,
        leaseMs: 30_000,
        maxAttempts: 5,
        now: T0 + 1,
      });
      expect(rest.events).toHaveLength(5);
      expect(starts[0]).toBe(0);
      if (c.with.length === 0) expect(starts[1]).toBe(0);
      else expect(starts[1]).toBeGreaterThan(0);
      await store.close();
    });

    it.each([
      { with: [], held: 0 },
      { with: [ackBatcherAccelerator], held: 1 },
    ])("ack-batcher: five acks of one turn hold $held connection(s) for a shared write", async (c) => {
      let held = 0;
      const spy: PostgresAccelerator = {
        name: "count",
        apply(kit) {
          const hold = kit.hold;
          (kit as { hold: typeof hold }).hold = () => {
            held++;
            return hold();
          };
        },
      };
      const store = await open([spy, ...c.with]);
      const { agent, pod } = await aWorld(store);
      await store.enqueueEvents(events(agent.id, pod.id, 5));
      const claimed = (await claim(store, agent.id)).events;
      const found = await Promise.all(
        claimed.map((e) => store.ackEvent({ agentId: agent.id, eventId: e.id, now: T0, result: null })),
      );
      expect(found).toEqual([true, true, true, true, true]);
      expect(held).toBe(c.held);
      await store.close();
    });
  },
);
