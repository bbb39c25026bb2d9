/**
 * Double texting (feature `cancel`) on a real kernel over sockets, on SQLite and on PostgreSQL: under an
 * installation's `interrupt` policy a human's message cancels the deliveries the agent holds of the pod's
 * events (reason `superseded`, by the kernel) and the new event names them in `supersedes`; under
 * `enqueue` (the default) and for agents' messages nothing is cancelled. The policy is set by whoever may
 * install the agent, on install or with PATCH, and shown on the installation.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CallAnswer,
  call,
  eventually,
  startKernelInProcess,
  type TestKernel,
} from "../../src/testing/index.js";
import { kernelDbs } from "../helpers/kernel-dbs.js";

const CAP = "/api/agents/runtime";
type Ev = { id: string; type: string; supersedes?: string[]; payload: { content?: string } };

const STORES = kernelDbs("cap_dtext");

for (const [name, skip, makeDb] of STORES) {
  describe.skipIf(skip !== undefined)(`double texting on ${name}${skip ? ` (${skip})` : ""}`, () => {
    let k: TestKernel;
    let drop: () => Promise<void> = async () => {};
    const as = (agent: string, method: string, path: string, body?: unknown): Promise<CallAnswer> =>
      call(k.url, method, `${CAP}${path}`, k.agents[agent]!.token, body);
    const poll = async (agent: string): Promise<Ev[]> =>
      (await as(agent, "GET", "/events?limit=50")).body.events;
    /** Everything `agent` has open (pending or held) acked, so each test starts with nothing held. */
    const drain = async (agent: string) => {
      for (const e of await k.queue(agent))
        if (e.state === "pending" || e.state === "leased") await as(agent, "POST", `/events/${e.id}/ack`, {});
    };
    const installation = async (agent: string) => {
      const pod = await k.admin.get(`/api/pods/${k.podId}`);
      return pod.installations.find((i: { agentName: string }) => i.agentName === agent);
    };

    beforeAll(async () => {
      const d = await makeDb();
      drop = d.drop;
      k = await startKernelInProcess({ db: d.db, agents: ["alpha", "beta"] });
    });
    afterAll(async () => {
      await k?.stop();
      await drop();
    });

    it("shows enqueue on every installation by default, and PATCH sets interrupt", async () => {
      expect((await installation("alpha")).doubleTexting).toBe("enqueue");
      const patched = await k.admin.patch(`/api/registry/pods/${k.podId}/agents/beta`, {
        doubleTexting: "interrupt",
      });
      expect(patched).toMatchObject({ agentName: "beta", doubleTexting: "interrupt", status: "active" });
      expect((await installation("beta")).doubleTexting).toBe("interrupt");
      await k.setDoubleTexting("beta", "enqueue");
      expect((await installation("beta")).doubleTexting).toBe("enqueue");
    });

    it("refuses a policy it does not know, an unknown field and an unknown installation", async () => {
      const path = `/api/registry/pods/${k.podId}/agents`;
      for (const body of [{ doubleTexting: "reject" }, { doubleTexting: "interrupt", extra: 1 }]) {
        const r = await call(k.url, "PATCH", `${path}/alpha`, k.human.token, body);
        expect([r.status, r.body.code]).toEqual([400, "validation_failed"]);
      }
      const missing = await call(k.url, "PATCH", `${path}/nobody`, k.human.token, {
        doubleTexting: "interrupt",
      });
      expect([missing.status, missing.body.code]).toEqual([404, "installation_not_found"]);
      const agent = await call(k.url, "PATCH", `${path}/alpha`, k.agents.alpha!.token, {
        doubleTexting: "enqueue",
      });
      expect(agent.status).toBe(401);
      expect((await installation("alpha")).doubleTexting).toBe("enqueue");
    });

    it("takes the policy on install", async () => {
      await k.admin.post("/api/registry/publish", { name: "gamma" });
      const inst = await k.admin.post("/api/registry/install", {
        agentName: "gamma",
        podId: k.podId,
        doubleTexting: "interrupt",
      });
      expect(inst.doubleTexting).toBe("interrupt");
      const bad = await call(k.url, "POST", "/api/registry/install", k.human.token, {
        agentName: "gamma",
        podId: k.podId,
        instanceId: "two",
        doubleTexting: "sometimes",
      });
      expect([bad.status, bad.body.code]).toEqual([400, "validation_failed"]);
    });

    it("CAP-CANCEL-14: under interrupt a human's message cancels the held deliveries of the pod, and the new event names them", async () => {
      await k.setDoubleTexting("alpha", "interrupt");
      await drain("alpha");
      try {
        await k.say("first question");
        const [first] = await poll("alpha");
        expect(first?.payload.content).toBe("first question");
        const waiting = as("alpha", "GET", `/events/${first!.id}/cancellation?attempts=1&waitSeconds=25`);
        await eventually(() => k.app!.kernel.cancelHub.watchCount() > 0, "alpha watches its delivery");
        await k.say("actually, a different question");
        const watched = await waiting;
        expect(watched.body).toMatchObject({ cancelRequested: true, reason: "superseded" });
        expect(await k.state("alpha", first!.id)).toMatchObject({
          state: "cancelled",
          cancelReason: "superseded",
          cancelledBy: { kind: "kernel", id: "double-texting" },
        });
        const [second] = await poll("alpha");
        expect(second).toMatchObject({ supersedes: [first!.id] });
        expect(second?.payload.content).toBe("actually, a different question");
        const renew = await as("alpha", "POST", `/events/${first!.id}/renew`, { attempts: 1 });
        expect(renew.body.details).toEqual({ cancelled: true, reason: "superseded" });
        await as("alpha", "POST", `/events/${second!.id}/ack`, {});
      } finally {
        await k.setDoubleTexting("alpha", "enqueue");
      }
    });

    it("CAP-CANCEL-14: leaves pending events and other agents' deliveries alone", async () => {
      await k.setDoubleTexting("alpha", "interrupt");
      await drain("alpha");
      await drain("beta");
      try {
        await k.say("one");
        const [delivered] = await poll("alpha");
        const [betaHeld] = await poll("beta");
        const pending = await k.emit("alpha", "task.assigned", { taskId: "t", title: "queued" });
        await k.say("two");
        expect((await k.state("alpha", delivered!.id))?.state).toBe("cancelled");
        expect((await k.state("alpha", pending))?.state).toBe("pending");
        expect((await k.state("beta", betaHeld!.id))?.state).toBe("leased");
        const next = await poll("alpha");
        expect(next.find((e) => e.id !== pending)).toMatchObject({ supersedes: [delivered!.id] });
        expect(next.find((e) => e.id === pending)).not.toHaveProperty("supersedes");
        for (const e of next) await as("alpha", "POST", `/events/${e.id}/ack`, {});
      } finally {
        await k.setDoubleTexting("alpha", "enqueue");
        await drain("alpha");
        await drain("beta");
      }
    });

    it("CAP-CANCEL-14: interrupts only the agents the message wakes", async () => {
      // quiet: installed with interrupt but opted out of message.posted, so only a mention wakes it.
      await k.admin.post("/api/registry/publish", { name: "quiet" });
      await k.admin.post("/api/registry/install", {
        agentName: "quiet",
        podId: k.podId,
        messagePosted: false,
        doubleTexting: "interrupt",
      });
      const issued = await k.admin.post(`/api/registry/pods/${k.podId}/agents/quiet/runtime-tokens`, {});
      const quiet = (method: string, path: string, body?: unknown) =>
        call(k.url, method, `${CAP}${path}`, issued.token, body);
      const work = await k.emit("quiet", "task.assigned", { taskId: "t", title: "long job" });
      expect((await quiet("GET", "/events")).body.events.map((e: Ev) => e.id)).toEqual([work]);
      await k.say("a message for everyone but quiet");
      expect((await k.state("quiet", work))?.state).toBe("leased");
      await k.say("@quiet stop that and look here");
      expect((await k.state("quiet", work))?.state).toBe("cancelled");
      const [mention] = (await quiet("GET", "/events")).body.events as Ev[];
      expect(mention).toMatchObject({ type: "mention.received", supersedes: [work] });
    });

    it("CAP-CANCEL-15: under enqueue (the default) a human's message cancels nothing, and carries no supersedes", async () => {
      await drain("alpha");
      await k.say("first");
      const [first] = await poll("alpha");
      await k.say("second");
      expect((await k.state("alpha", first!.id))?.state).toBe("leased");
      const [second] = await poll("alpha");
      expect(second).not.toHaveProperty("supersedes");
      await drain("alpha");
      await as("alpha", "POST", `/events/${first!.id}/ack`, {});
      await as("alpha", "POST", `/events/${second!.id}/ack`, {});
    });

    it("CAP-CANCEL-15: an agent's message never interrupts, even under interrupt", async () => {
      await k.setDoubleTexting("alpha", "interrupt");
      await drain("alpha");
      try {
        const held = await k.emit("alpha", "task.assigned", { taskId: "t", title: "work" });
        await poll("alpha");
        const posted = await as("beta", "POST", `/pods/${k.podId}/messages`, {
          content: "@alpha look at this",
        });
        expect(posted.status).toBe(201);
        expect((await k.state("alpha", held))?.state).toBe("leased");
        const [mention] = await poll("alpha");
        expect(mention).toMatchObject({ type: "mention.received" });
        expect(mention).not.toHaveProperty("supersedes");
      } finally {
        await k.setDoubleTexting("alpha", "enqueue");
        await drain("alpha");
      }
    });

    it("counts superseded cancels apart in /metrics", async () => {
      const superseded = async () =>
        Number(
          (await (await fetch(`${k.url}/metrics`)).text()).match(
            /^cap_events_cancelled_total\{reason="superseded"\} (\d+)$/m,
          )?.[1] ?? 0,
        );
      const before = await superseded();
      await k.setDoubleTexting("alpha", "interrupt");
      await drain("alpha");
      try {
        await k.say("a");
        await poll("alpha");
        await k.say("b");
        expect(await superseded()).toBe(before + 1);
      } finally {
        await k.setDoubleTexting("alpha", "enqueue");
        await drain("alpha");
      }
    });
  });
}
