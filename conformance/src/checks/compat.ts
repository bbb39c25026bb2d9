/**
 * Compatibility with deployed drivers and with the future: one base path, no version declaration, unknown
 * query parameters and body fields ignored, and an identity that comes from the token alone — whatever a
 * body or query names.
 */

import { demands, R } from "../agents.js";
import { defineCheck } from "../check.js";
import type { CheckContext } from "../context.js";
import { carries, collect, eventsOf, trigger } from "../queue.js";
import { arrival, now } from "../timing.js";

export const compatChecks = [
  defineCheck({
    id: "compat.base-path-without-version",
    family: "compat",
    title: "serves CAP under /api/agents/runtime without asking the driver to declare a version",
    verifies: ["CAP-COMPAT-1", "CAP-VER-3"],
    async run(ctx: CheckContext) {
      const res = await ctx.as("a").bare("GET", `${R}/memory`, { headers: {} });
      ctx.expectStatus("CAP-COMPAT-1", res, 200, "GET /api/agents/runtime/memory");
      const post = await ctx.as("a").post(ctx.cast.shared, { content: `conformance ${ctx.nonce()}` });
      ctx.expectAccepted("CAP-VER-3", post, "a post that declares no CAP version", demands.post);
    },
  }),
  defineCheck({
    id: "compat.unknown-query-ignored",
    family: "compat",
    title: "ignores unknown query parameters on every route",
    verifies: ["CAP-COMPAT-3"],
    async run(ctx: CheckContext) {
      const a = ctx.as("a");
      const extra = { agentName: ctx.cast.b.name, instanceId: "conformance", v: 2, foo: "bar" };
      const get = await a.bare("GET", `${R}/memory`, { query: extra });
      ctx.expectStatus("CAP-COMPAT-3", get, 200, "GET /memory with unknown query parameters");
      const post = await a.bare("POST", `${R}/pods/${encodeURIComponent(ctx.cast.shared)}/messages`, {
        query: extra,
        body: { content: `conformance ${ctx.nonce()}` },
      });
      ctx.expectAccepted("CAP-COMPAT-3", post, "a post with unknown query parameters", demands.post);
      if (ctx.has("info"))
        ctx.expectStatus(
          "CAP-COMPAT-3",
          await a.bare("GET", `${R}/info`, { query: extra }),
          200,
          "GET /info with unknown query parameters",
        );
    },
  }),
  defineCheck({
    id: "compat.unknown-body-fields-ignored",
    family: "compat",
    title: "ignores unknown body fields on posts and memory writes",
    verifies: ["CAP-COMPAT-4"],
    async run(ctx: CheckContext) {
      const a = ctx.as("a");
      const post = await a.post(ctx.cast.shared, {
        content: `conformance ${ctx.nonce()}`,
        messageType: "text",
        reply_to_message_id: "msg_snake_case_is_not_cap",
        attachments: [{ url: ctx.canaryUrl("attachment") }],
      });
      ctx.expectAccepted("CAP-COMPAT-4", post, "a post with fields CAP does not define", demands.post);
      const put = await a.putMemory({
        content: `conformance ${ctx.nonce()}`,
        version: 3,
        extra: { url: ctx.canaryUrl("memory") },
      });
      ctx.expectAccepted(
        "CAP-COMPAT-4",
        put,
        "a memory PUT with fields CAP does not define",
        demands.putMemory,
      );
      const sync = await a.sync({
        sections: { shared: { content: ctx.nonce() } },
        mode: "patch",
        force: true,
      });
      ctx.expectAccepted("CAP-COMPAT-4", sync, "a sync with fields CAP does not define", demands.sync);
    },
  }),
  defineCheck({
    id: "compat.identity-from-token",
    family: "compat",
    title: "takes the acting identity from the token alone, ignoring names in the body or query",
    verifies: ["CAP-AUTH-6"],
    queue: true,
    async run(ctx: CheckContext) {
      const { a, b } = ctx.cast;
      const impostor = { agentName: b.name, instanceId: b.instanceId ?? b.name };
      const nonce = ctx.nonce();
      await trigger(ctx, "b", nonce);
      // a polls naming b: b's event must stay b's.
      const poll = await ctx.as("a").poll({ ...impostor, limit: 50 });
      for (const e of eventsOf(ctx, poll)) {
        ctx.expect("CAP-AUTH-6", !carries(e, nonce), {
          message: "a poll naming another agent got that agent's event",
          actual: e,
          exchange: poll,
        });
        await ctx.as("a").ack(e.id);
      }
      const [mine] = await collect(ctx, "b", {
        match: (e) => carries(e, nonce),
        count: 1,
        deadline: now() + arrival(ctx.timing),
      });
      if (mine) await ctx.as("b").ack(mine.id);
      // a posts a mention of b while naming b (and a made-up author) in the body.
      const said = ctx.nonce();
      const post = await ctx.as("a").post(ctx.cast.shared, {
        content: `@${b.name} conformance ${said}`,
        ...impostor,
        author: { id: "usr_conformance", kind: "human", name: "someone-else" },
      });
      // Refusing it breaks CAP-AUTH-6 (the names must be ignored); accepting it otherwise than 201 is CAP-MSG-1's.
      if (!ctx.expectAccepted("CAP-AUTH-6", post, "a post naming another identity in its body", demands.post))
        return;
      const [evt] = await collect(ctx, "b", {
        match: (e) => carries(e, said),
        count: 1,
        deadline: now() + arrival(ctx.timing),
      });
      if (!evt) ctx.incomplete("the mention never reached agent b");
      await ctx.as("b").ack(evt.id);
      const author = (evt.payload as { author?: { name?: unknown; kind?: unknown } } | undefined)?.author;
      ctx.expect("CAP-AUTH-6", author?.name === a.name && author?.kind === "agent", {
        message: "the message's author came from the body, not the token",
        expected: { name: a.name, kind: "agent" },
        actual: author,
      });
      // a writes memory naming b: it must land in a's memory.
      const memo = ctx.nonce();
      await ctx.as("a").putMemory({ ...impostor, sections: { dedup_state: { content: memo } } });
      const theirs = await ctx.as("b").getMemory();
      ctx.expect("CAP-AUTH-6", !theirs.exchange.responseBody.includes(memo), {
        message: "a memory write naming another agent changed that agent's memory",
        exchange: theirs,
      });
    },
  }),
];
