/**
 * The kit's store-outage switch, on both dialects, driven by its own shell commands as a conformance
 * fixture's hook runs them: while down, a kernel process served through it answers writes 503
 * store_unavailable with Retry-After (never 500) and applies none of them; once up, it serves again by
 * itself, with what it confirmed before intact.
 */
import { exec } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import {
  freshPgSchema,
  freshSqliteUrl,
  pgSkipReason,
  pgTestUrl,
  startKernel,
  storeOutageSwitch,
} from "../../src/testing/index.js";

const sh = promisify(exec);

async function outageAndBack(db: string) {
  const outage = await storeOutageSwitch(db);
  const k = await startKernel({ db: outage.db, agents: ["bot"], leaseSeconds: 1 });
  try {
    const token = k.agents.bot!.token;
    const put = (content: string) => k.cap(token, "PUT", "/memory", { sections: { soul: { content } } });
    expect((await put("before")).status).toBe(200);
    const emitted = await k.emit("bot", "task.assigned", { n: 1 });

    await sh(outage.commands.down);
    expect(outage.isDown).toBe(true);
    const refused = await fetch(`${k.url}/api/agents/runtime/memory`, {
      method: "PUT",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ sections: { soul: { content: "during" } } }),
    });
    expect([refused.status, ((await refused.json()) as { code: string }).code]).toEqual([
      503,
      "store_unavailable",
    ]);
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    expect((await k.cap(token, "GET", "/events")).status).toBe(503);

    await sh(outage.commands.up);
    expect(outage.isDown).toBe(false);
    const memory = await k.cap<{ sections: { soul?: { content: string } } }>(token, "GET", "/memory");
    expect(memory.body.sections.soul?.content).toBe("before");
    // The refused poll claimed nothing: the event's first delivery is still to come.
    const polled = await k.cap<{ events: { id: string; attempts: number }[] }>(token, "GET", "/events");
    expect(polled.body.events.map((e) => [e.id, e.attempts])).toEqual([[emitted, 1]]);
  } finally {
    await k.stop();
    await outage.close();
  }
}

describe("storeOutageSwitch", () => {
  it("takes an SQLite kernel's store away with the file's write lock, and gives it back", async () => {
    await outageAndBack(freshSqliteUrl());
  });

  it.skipIf(!pgTestUrl)(
    `cuts a PostgreSQL kernel's connections at its proxy, and lets them through again${pgTestUrl ? "" : ` (${pgSkipReason})`}`,
    async () => {
      const schema = await freshPgSchema("cap_outage");
      try {
        await outageAndBack(schema.url);
      } finally {
        await schema.drop();
      }
    },
  );

  it("refuses a store it cannot take away", async () => {
    await expect(storeOutageSwitch("sqlite::memory:")).rejects.toThrow(/SQLite file or a PostgreSQL URL/);
  });
});
