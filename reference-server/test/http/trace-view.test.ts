/**
 * The trace view (feature `trace-context`) on a real kernel over sockets, on SQLite and on PostgreSQL: one
 * human message mentioning three agents — alpha acks and replies, beta releases, renews, lets two leases
 * end (one claimed again, one acked late) and acks, gamma's event is cancelled — read back from the
 * kernel's own records as one timeline, rooted at the message or at any of its events; an injected event
 * alone; 404s for what is not in the pod.
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
const TRACE = "0af7651916cd43dd8448eb211c80319c";
const TP = `00-${TRACE}-b7ad6b7169203331-01`;
type Entry = {
  at: string;
  kind: string;
  agentName?: string;
  attempt?: number;
  reason?: string;
  outcome?: string;
  messageId?: string;
  eventId?: string;
  traceId?: string;
  leaseExpiresAt?: string;
};
type Ev = { id: string; attempts: number; leaseExpiresAt: string };

for (const [name, skip, makeDb] of kernelDbs("cap_trace_view")) {
  describe.skipIf(skip !== undefined)(`the trace view on ${name}${skip ? ` (${skip})` : ""}`, () => {
    let k: TestKernel;
    let drop: () => Promise<void> = async () => {};
    let root: string;
    let reply: string;
    const ids: Record<string, string> = {};
    const as = (agent: string, method: string, path: string, body?: unknown): Promise<CallAnswer> =>
      call(k.url, method, `${CAP}${path}`, k.agents[agent]!.token, body);
    const poll = async (agent: string): Promise<Ev[]> =>
      (await as(agent, "GET", "/events?limit=50")).body.events;
    const view = async (path: string) => {
      const r = await call(k.url, "GET", `/api/pods/${k.podId}/${path}/trace`, k.human.token);
      expect(r.status, r.text).toBe(200);
      return r.body as {
        traceId?: string;
        message?: Record<string, unknown>;
        events: Record<string, unknown>[];
        entries: Entry[];
      };
    };
    /** An agent's entries, as `kind attempt` (and reason or outcome when set). */
    const story = (entries: Entry[], agent: string) =>
      entries
        .filter((e) => e.agentName === agent && e.kind !== "reply.posted")
        .map((e) => [e.kind, e.attempt, e.reason ?? e.outcome].filter((x) => x !== undefined).join(" "));

    beforeAll(async () => {
      const d = await makeDb();
      drop = d.drop;
      k = await startKernelInProcess({
        db: d.db,
        agents: ["alpha", "beta", "gamma"],
        listeners: [],
        leaseSeconds: 2,
      });
      const posted = await fetch(`${k.url}/api/pods/${k.podId}/messages`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${k.human.token}`,
          "content-type": "application/json",
          traceparent: TP,
        },
        body: JSON.stringify({ content: "@alpha @beta @gamma status?" }),
      });
      root = ((await posted.json()) as { id: string }).id;

      // alpha: one delivery, a reply in the trace, acked "posted".
      const [a] = await poll("alpha");
      ids.alpha = a!.id;
      const r = await fetch(`${k.url}${CAP}/pods/${k.podId}/messages`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${k.agents.alpha!.token}`,
          "content-type": "application/json",
          traceparent: `00-${TRACE}-1111111111111111-01`,
        },
        body: JSON.stringify({ content: "all good", replyToMessageId: root }),
      });
      reply = ((await r.json()) as { id: string }).id;
      await as("alpha", "POST", `/events/${a!.id}/ack`, { result: { outcome: "posted", messageId: reply } });
      // A message of alpha's in another trace that replies to nothing is not a reply.
      await as("alpha", "POST", `/pods/${k.podId}/messages`, { content: "unrelated" });

      // gamma: cancelled by the human before any delivery.
      const gammaEvent = (await k.queue("gamma"))[0]!.id;
      ids.gamma = gammaEvent;
      await k.cancel(gammaEvent, "not needed");

      // beta: released, claimed again and renewed, its lease left to end and claimed a third time, that lease
      // left to end too, then acked late.
      const [b1] = await poll("beta");
      ids.beta = b1!.id;
      await as("beta", "POST", `/events/${b1!.id}/release`, { attempts: 1, reason: "busy" });
      const [b2] = await poll("beta");
      expect(b2?.attempts).toBe(2);
      await as("beta", "POST", `/events/${b1!.id}/renew`, { attempts: 2 });
      const b3 = await eventually(
        async () => (await poll("beta"))[0],
        "beta's second lease ends and it is claimed again",
      );
      expect(b3.attempts).toBe(3);
      const end = Date.parse(b3.leaseExpiresAt);
      await eventually(() => Date.now() > end + 5, "beta's third lease ends");
      await as("beta", "POST", `/events/${b1!.id}/ack`, { result: { outcome: "no_action" } });
    });
    afterAll(async () => {
      await k?.stop();
      await drop();
    });

    it("tells the message's story per agent, from its own records", async () => {
      const v = await view(`messages/${root}`);
      expect(v.traceId).toBe(TRACE);
      expect(v.message).toMatchObject({ id: root, authorKind: "human", traceContext: { traceparent: TP } });
      expect(v.events.map((e) => [e.agentName, e.state])).toEqual([
        ["alpha", "acked"],
        ["beta", "acked"],
        ["gamma", "cancelled"],
      ]);
      expect(story(v.entries, "alpha")).toEqual([
        "event.enqueued",
        "delivery.claimed 1",
        "event.acked 1 posted",
      ]);
      expect(story(v.entries, "beta")).toEqual([
        "event.enqueued",
        "delivery.claimed 1",
        "delivery.released 1 busy",
        "delivery.claimed 2",
        "delivery.renewed 2",
        "delivery.expired 2",
        "delivery.claimed 3",
        "delivery.expired 3",
        "event.acked 3 no_action",
      ]);
      expect(story(v.entries, "gamma")).toEqual(["event.enqueued", "event.cancelled 0 not needed"]);
    });

    it("starts with the post, sorts by time, and ends with the reply", async () => {
      const { entries } = await view(`messages/${root}`);
      expect(entries[0]).toMatchObject({ kind: "message.posted", messageId: root, traceId: TRACE });
      const times = entries.map((e) => Date.parse(e.at));
      expect(times).toEqual([...times].sort((x, y) => x - y));
      const replies = entries.filter((e) => e.kind === "reply.posted");
      expect(replies).toEqual([
        expect.objectContaining({ messageId: reply, agentName: "alpha", eventId: ids.alpha, traceId: TRACE }),
      ]);
      const claimed = entries.find((e) => e.kind === "delivery.claimed");
      expect(Date.parse(claimed!.leaseExpiresAt!)).toBeGreaterThan(Date.parse(claimed!.at));
    });

    it("is the same view rooted at any of the message's events", async () => {
      const byMessage = await view(`messages/${root}`);
      for (const agent of ["alpha", "beta", "gamma"]) {
        const byEvent = await view(`events/${ids[agent]}`);
        expect(byEvent.entries).toEqual(byMessage.entries);
        expect(byEvent.message).toEqual(byMessage.message);
      }
    });

    it("shows an injected event alone, with the inject's trace", async () => {
      const injected = `00-${"5".repeat(32)}-2222222222222222-01`;
      const r = await fetch(`${k.url}/api/admin/events`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${k.human.token}`,
          "content-type": "application/json",
          traceparent: injected,
        },
        body: JSON.stringify({
          agentName: "alpha",
          podId: k.podId,
          type: "task.assigned",
          payload: { taskId: "t", title: "x" },
        }),
      });
      const { id } = (await r.json()) as { id: string };
      const [e] = await poll("alpha");
      await as("alpha", "POST", `/events/${e!.id}/ack`, {});
      const v = await view(`events/${id}`);
      expect(v.message).toBeUndefined();
      expect(v.traceId).toBe("5".repeat(32));
      expect(v.events).toEqual([
        expect.objectContaining({ id, agentName: "alpha", traceContext: { traceparent: injected } }),
      ]);
      expect(v.entries.map((x) => x.kind)).toEqual(["event.enqueued", "delivery.claimed", "event.acked"]);
    });

    it("answers 404 for a message or event not in the pod, and for a pod the caller may not see", async () => {
      const other = (await k.admin.post("/api/pods", { name: "elsewhere" })) as { id: string };
      const cases: [string, string][] = [
        [`/api/pods/${k.podId}/messages/msg_nope/trace`, "message_not_found"],
        [`/api/pods/${other.id}/messages/${root}/trace`, "message_not_found"],
        [`/api/pods/${k.podId}/events/evt_nope/trace`, "event_not_found"],
        [`/api/pods/${other.id}/events/${ids.beta}/trace`, "event_not_found"],
        [`/api/pods/pod_nope/events/${ids.beta}/trace`, "pod_not_found"],
      ];
      for (const [path, code] of cases) {
        const r = await call(k.url, "GET", path, k.human.token);
        expect([path, r.status, r.body.code]).toEqual([path, 404, code]);
      }
      const agentCall = await call(
        k.url,
        "GET",
        `/api/pods/${k.podId}/messages/${root}/trace`,
        k.agents.alpha!.token,
      );
      expect(agentCall.status).toBe(401);
    });
  });
}
