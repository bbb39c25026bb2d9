/**
 * Isolation between agent identities: events go only to the agent they are for, another agent's event is
 * as good as nonexistent (404), a pod without an installation is closed (403), and memory is private to
 * its identity.
 */

import { randomBytes } from "node:crypto";
import { demands } from "../agents.js";
import { defineCheck } from "../check.js";
import type { CheckContext } from "../context.js";
import { carries, collect, eventsOf, trigger } from "../queue.js";
import { arrival, now, pause, pollInterval } from "../timing.js";

export const isolationChecks = [
  defineCheck({
    id: "isolation.events-only-to-their-agent",
    family: "isolation",
    title: "never delivers an agent's event to another agent",
    verifies: ["CAP-EVT-1"],
    queue: true,
    async run(ctx: CheckContext) {
      const nonce = ctx.nonce();
      await trigger(ctx, "b", nonce);
      const deadline = now() + arrival(ctx.timing);
      const others = async () => {
        for (const role of ["a", "c"] as const) {
          const res = await ctx.as(role).poll({ limit: 50 });
          for (const e of eventsOf(ctx, res)) {
            ctx.expect("CAP-EVT-1", !carries(e, nonce), {
              message: `agent ${ctx.cast[role].name} received an event meant for ${ctx.cast.b.name}`,
              expected: "no event carrying the nonce",
              actual: e,
              exchange: res,
            });
            await ctx.as(role).ack(e.id);
          }
        }
      };
      let mine = 0;
      // Poll the two other agents while b's event is pending, and once more after b has claimed it.
      while (mine === 0 && now() < deadline) {
        await others();
        const got = await collect(ctx, "b", { match: (e) => carries(e, nonce), count: 1, deadline: now() });
        for (const e of got) await ctx.as("b").ack(e.id);
        mine += got.length;
        if (mine === 0) await pause(pollInterval(ctx.timing));
      }
      await others();
      if (mine === 0) ctx.incomplete(`the event for ${ctx.cast.b.name} never arrived`);
    },
  }),
  defineCheck({
    id: "isolation.foreign-event-not-found",
    family: "isolation",
    title: "answers an ack (and a renew) of another agent's or an unknown event with 404 event_not_found",
    verifies: ["CAP-ACK-5"],
    queue: true,
    async run(ctx: CheckContext) {
      const nonce = ctx.nonce();
      await trigger(ctx, "b", nonce);
      const [e] = await collect(ctx, "b", {
        match: (x) => carries(x, nonce),
        count: 1,
        deadline: now() + arrival(ctx.timing),
      });
      if (!e) ctx.incomplete("the event for agent b never arrived");
      for (const role of ["a", "c"] as const) {
        const ack = await ctx
          .as(role)
          .ack(e.id, { result: { outcome: "acknowledged", reason: ctx.canaryUrl("ack") } });
        ctx.expectError(
          "CAP-ACK-5",
          ack,
          404,
          "event_not_found",
          `${ctx.cast[role].name} acking ${ctx.cast.b.name}'s event`,
        );
        if (ctx.has("renew")) {
          const renew = await ctx.as(role).renew(e.id, e.attempts);
          ctx.expectError(
            "CAP-ACK-5",
            renew,
            404,
            "event_not_found",
            `${ctx.cast[role].name} renewing another agent's event`,
          );
        }
      }
      const unknown = `evt_${randomBytes(8).toString("hex")}`;
      const res = await ctx.as("b").ack(unknown);
      ctx.expectError("CAP-ACK-5", res, 404, "event_not_found", "acking an event id that does not exist");
      await ctx.as("b").ack(e.id);
    },
  }),
  defineCheck({
    id: "isolation.pod-without-installation",
    family: "isolation",
    title:
      "answers a request naming a pod without an active installation, or no pod at all, with 403 not_installed",
    verifies: ["CAP-AUTH-5"],
    async run(ctx: CheckContext) {
      const { shared, other } = ctx.cast;
      const ghost = `pod_conformance_${randomBytes(6).toString("hex")}`;
      const cases = [
        { role: "c" as const, pod: shared },
        { role: "a" as const, pod: other },
        { role: "a" as const, pod: ghost },
      ];
      for (const { role, pod } of cases) {
        const api = ctx.as(role);
        const post = await api.post(pod, {
          content: `conformance: must be refused ${ctx.nonce()} ${ctx.canaryUrl("post")}`,
        });
        ctx.expectError("CAP-AUTH-5", post, 403, "not_installed", `${api.name} posting into ${pod}`);
        if (ctx.has("message-read")) {
          const read = await api.read(pod);
          ctx.expectError("CAP-AUTH-5", read, 403, "not_installed", `${api.name} reading ${pod}`);
        }
        if (ctx.has("decisions")) {
          const body = {
            podId: pod,
            decisionClass: "strategy",
            title: "t",
            question: "q?",
            options: ["x", "y"],
          };
          const dec = await api.decide(body);
          ctx.expectError("CAP-AUTH-5", dec, 403, "not_installed", `${api.name} asking a decision in ${pod}`);
        }
      }
    },
  }),
  defineCheck({
    id: "isolation.memory-per-identity",
    family: "isolation",
    title: "keeps each identity's memory to itself",
    verifies: ["CAP-MEM-2"],
    async run(ctx: CheckContext) {
      const nonce = ctx.nonce();
      const put = await ctx
        .as("a")
        .putMemory({ sections: { shared: { content: `private to a ${nonce}`, visibility: "pod" } } });
      ctx.setupAnswer(put, demands.putMemory, "agent a writing its memory");
      const own = await ctx.as("a").getMemory();
      ctx.expect("CAP-MEM-2", JSON.stringify(own.body ?? "").includes(nonce), {
        message: "agent a does not read back its own memory",
        expected: `memory containing ${nonce}`,
        actual: own.exchange.responseBody.slice(0, 300),
        exchange: own,
      });
      for (const role of ["b", "c"] as const) {
        const res = await ctx.as(role).getMemory();
        ctx.expect("CAP-MEM-2", res.status === 200 && !res.exchange.responseBody.includes(nonce), {
          message: `agent ${ctx.cast[role].name} can read agent ${ctx.cast.a.name}'s memory`,
          expected: "HTTP 200 without the other agent's memory",
          actual: `HTTP ${res.status} ${res.exchange.responseBody.slice(0, 300)}`,
          exchange: res,
        });
      }
    },
  }),
];
