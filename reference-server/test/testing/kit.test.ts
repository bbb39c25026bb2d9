/**
 * The testing kit itself: deadline polling, child processes, and kernels started as a process, in-process
 * and on PostgreSQL.
 */
import { describe, expect, it } from "vitest";
import {
  eventually,
  freshPgSchema,
  pgSkipReason,
  pgTestUrl,
  spawnProcess,
  startKernel,
  startKernelInProcess,
} from "../../src/testing/index.js";

describe("eventually", () => {
  it("resolves as soon as the probe returns a value", async () => {
    let n = 0;
    expect(await eventually(() => (++n >= 3 ? n : undefined), "the third probe", { everyMs: 1 })).toBe(3);
  });

  it("fails at the deadline naming what it waited for and the last error", async () => {
    const probe = () => {
      throw new Error("kernel down");
    };
    await expect(eventually(probe, "the reply", { timeoutMs: 50, everyMs: 10 })).rejects.toThrow(
      /waiting until the reply \(last error: kernel down\)/,
    );
  });
});

describe("spawnProcess", () => {
  it("waits for output and stops the whole process group", async () => {
    const p = spawnProcess("bash", ["-c", "echo ready; sleep 30 & wait"], { name: "sleeper" });
    expect((await p.waitForOutput(/ready/))[0]).toBe("ready");
    await p.stop(2_000);
    expect(p.child.signalCode ?? p.child.exitCode).not.toBeNull();
  });

  it("rejects when the process exits before printing what is awaited", async () => {
    const p = spawnProcess("bash", ["-c", "echo bye; exit 3"], { name: "quitter" });
    await expect(p.waitForOutput(/never/)).rejects.toThrow(/quitter exited \(3\)/);
  });
});

describe("startKernel / startKernelInProcess", () => {
  it("serves a provisioned kernel as a process on --port 0 and comes back on the same port after a kill", async () => {
    const k = await startKernel({ agents: ["bot"], leaseSeconds: 1 });
    try {
      const id = await k.emit("bot", "task.assigned", { n: 1 });
      const polled = await k.cap<{ events: { id: string }[] }>(k.agents.bot!.token, "GET", "/events");
      expect([polled.status, polled.body.events.map((e) => e.id)]).toEqual([200, [id]]);
      const port = new URL(k.url).port;
      await k.kill();
      await expect(fetch(`${k.url}/healthz`)).rejects.toThrow();
      await k.restart();
      expect(new URL(k.url).port).toBe(port);
      expect((await k.state("bot", id))?.attempts).toBe(1);
    } finally {
      await k.stop();
    }
  });

  it("runs the same kernel in-process on an in-memory store, provisioned through the services", async () => {
    const k = await startKernelInProcess({ agents: ["a", "b"], listeners: ["a"] });
    try {
      const said = await k.say("hello");
      await eventually(async () => (await k.queue("a")).length === 1, "a's event");
      expect(await k.queue("b")).toEqual([]);
      expect((await k.messages()).map((m) => m.id)).toEqual([said]);
      expect(k.process).toBeUndefined();
    } finally {
      await k.stop();
    }
  });

  it.skipIf(!pgTestUrl)(
    `runs on a PostgreSQL schema of its own${pgTestUrl ? "" : ` (${pgSkipReason})`}`,
    async () => {
      const schema = await freshPgSchema("cap_kit");
      const k = await startKernelInProcess({ db: schema.url, agents: ["pg"] });
      try {
        expect((await k.admin.get("/readyz")).store).toBe("postgres");
        await k.emit("pg", "t");
        expect((await k.queue("pg")).map((e) => e.state)).toEqual(["pending"]);
      } finally {
        await k.stop();
        await schema.drop();
      }
    },
  );
});
