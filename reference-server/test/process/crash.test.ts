/**
 * Crash safety on a real SQLite file: load the kernel (humans posting with fan-out, two agents polling and
 * acking, memory writes), `kill -9` it mid-load, restart it on the same file, then check that
 * - every message whose POST was answered 201 exists, and every event it enqueued is acked or deliverable;
 * - no event whose ack was answered 200 is ever delivered again;
 * - no memory write is half-applied (the three fields written together agree) and none answered 200 is lost.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { api, cli, startKernel } from "../helpers/process.js";

type Ev = { id: string; type: string; payload: { messageId: string } };

describe("crash and restart", () => {
  it("loses nothing acknowledged and resurrects nothing acked after kill -9 mid-load", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cap-crash-"));
    const db = `sqlite:${join(dir, "k.db")}`;
    const spec = join(dir, "spec.json");
    writeFileSync(
      spec,
      JSON.stringify({
        users: [{ name: "ops", admin: true }],
        pods: [{ name: "load" }],
        agents: [
          { name: "a", pods: ["load"] },
          { name: "b", pods: ["load"] },
        ],
      }),
    );
    const p = JSON.parse(await cli(["provision", "--db", db, "--file", spec]));
    const human = p.users[0].token as string;
    const podId = p.pods[0].id as string;
    const agents = p.agents as { name: string; token: string }[];

    const k1 = await startKernel(["--db", db, "--lease-seconds", "1", "--max-attempts", "1000"]);
    const posted = new Set<string>();
    const ackedBeforeCrash = new Set<string>();
    let memoryAcked = 0;
    let stop = false;
    const guard = async (fn: () => Promise<void>) => {
      while (!stop)
        await fn().catch(() => {
          stop = true;
        });
    };
    const poster = guard(async () => {
      const r = await api(`${k1.url}/api/pods/${podId}/messages`, human, "POST", {
        content: `work for @a ${posted.size}`,
      });
      if (r.status === 201) posted.add(r.json.id);
    });
    const pollers = agents.map((a) =>
      guard(async () => {
        const r = await api(`${k1.url}/api/agents/runtime/events?limit=10`, a.token);
        for (const e of (r.json?.events ?? []) as Ev[]) {
          const ack = await api(`${k1.url}/api/agents/runtime/events/${e.id}/ack`, a.token, "POST", {});
          if (ack.status === 200) ackedBeforeCrash.add(e.id);
        }
      }),
    );
    let n = 0;
    const memory = guard(async () => {
      const v = String(++n);
      const r = await api(`${k1.url}/api/agents/runtime/memory`, agents[0]!.token, "PUT", {
        content: v,
        sections: { soul: { content: v }, long_term: { content: v } },
      });
      if (r.status === 200) memoryAcked = Number(v);
    });
    const deadline = Date.now() + 20_000;
    while ((posted.size < 40 || ackedBeforeCrash.size < 30 || memoryAcked < 20) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    k1.proc.kill("SIGKILL");
    await k1.exited;
    stop = true;
    await Promise.all([poster, memory, ...pollers]);
    expect(posted.size).toBeGreaterThanOrEqual(40);
    expect(ackedBeforeCrash.size).toBeGreaterThanOrEqual(30);

    const k2 = await startKernel(["--db", db, "--lease-seconds", "1", "--max-attempts", "1000"]);
    try {
      const stored = new Set<string>();
      for (let before = ""; ; ) {
        const page = (await api(`${k2.url}/api/pods/${podId}/messages?limit=100${before}`, human)).json
          .messages as { id: string }[];
        for (const m of page) stored.add(m.id);
        if (page.length < 100) break;
        before = `&before=${page.at(-1)!.id}`;
      }
      for (const id of posted) expect(stored.has(id)).toBe(true);

      // Drain both agents until nothing is leased or pending any more (leases from before the crash end in 1 s).
      const redelivered = new Map<string, Set<string>>(agents.map((a) => [a.name, new Set()]));
      const reDeliveredIds = new Set<string>();
      const drainUntil = Date.now() + 15_000;
      let quietPolls = 0;
      while (Date.now() < drainUntil && quietPolls < 3) {
        let got = 0;
        for (const a of agents) {
          const events = (await api(`${k2.url}/api/agents/runtime/events?limit=50&waitSeconds=2`, a.token))
            .json.events as Ev[];
          got += events.length;
          for (const e of events) {
            reDeliveredIds.add(e.id);
            redelivered.get(a.name)!.add(e.payload.messageId);
            await api(`${k2.url}/api/agents/runtime/events/${e.id}/ack`, a.token, "POST", {});
          }
        }
        quietPolls = got === 0 ? quietPolls + 1 : 0;
      }
      for (const id of reDeliveredIds) expect(ackedBeforeCrash.has(id)).toBe(false);

      // Every event of every 201'd message is now acked (before the crash, or after redelivery).
      const stats = await (await fetch(`${k2.url}/metrics`)).text();
      expect(stats).toMatch(/cap_queue_events\{state="pending"\} 0/);
      expect(stats).toMatch(/cap_queue_events\{state="failed"\} 0/);
      expect(stats).toMatch(/cap_queue_events\{state="leased"\} 0/);
      const acked = Number(/cap_queue_events\{state="acked"\} (\d+)/.exec(stats)?.[1]);
      expect(acked).toBeGreaterThanOrEqual(2 * posted.size);

      const mem = (await api(`${k2.url}/api/agents/runtime/memory`, agents[0]!.token)).json;
      expect(mem.sections.soul.content).toBe(mem.content);
      expect(mem.sections.long_term.content).toBe(mem.content);
      expect(Number(mem.content)).toBeGreaterThanOrEqual(memoryAcked);
    } finally {
      k2.proc.kill("SIGKILL");
    }
  }, 90_000);
});
