/**
 * Posting per runtime token (issue 30, finding 5: one token posting 64 KiB messages grew the store by
 * 70 MiB/s): `limits.messagesPerMinute` messages and `limits.messageBytesPerMinute` bytes, as buckets that
 * refill continuously. A refused post is `429 rate_limited` with `Retry-After` and `details.limit`, and
 * stores nothing; an idempotent retry of a stored post is answered, never refused or counted twice. Time is
 * the kernel's injected clock; on both stores (a replay is read back from each).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { manualClock } from "../../src/clock.js";
import type { KernelLimits } from "../../src/config.js";
import { makeWorld, type World } from "../helpers/world.js";
import { type OpenedStore, STORES } from "./stores-under-test.js";

describe.each(STORES)("posting limits per token, on $name", ({ skip, open }) => {
  let opened: OpenedStore;
  let w: World;
  let clock: ReturnType<typeof manualClock>;
  beforeEach(async () => {
    if (skip) return;
    opened = await open();
    clock = manualClock(Date.now());
  });
  afterEach(async () => {
    if (skip) return;
    await w?.app.close();
    await opened.close();
  });

  const world = async (limits: Partial<KernelLimits>) => {
    w = await makeWorld({ store: opened.store, clock, config: { limits } });
    return w;
  };
  const post = (token: string, content: string, key?: string, metadata?: unknown) =>
    w.cap(
      token,
      "POST",
      `/pods/${w.podA.id}/messages`,
      { content, ...(metadata !== undefined ? { metadata } : {}) },
      key ? { "idempotency-key": key } : undefined,
    );
  const stored = async () =>
    (await w.adminApi("GET", `/pods/${w.podA.id}/messages?limit=100`)).json().messages.length as number;

  it.skipIf(skip)(
    "refuses the post after messagesPerMinute, says which limit and when to retry",
    async () => {
      await world({ messagesPerMinute: 3 });
      for (let i = 0; i < 3; i++) expect((await post(w.alpha.token, `m${i}`)).statusCode).toBe(201);
      const before = await stored();
      const refused = await post(w.alpha.token, "one too many");
      expect([refused.statusCode, refused.json().code]).toEqual([429, "rate_limited"]);
      expect(refused.json().details).toEqual({ limit: "messagesPerMinute", max: 3 });
      // One message comes back every 60 / 3 = 20 s.
      expect(refused.headers["retry-after"]).toBe("20");
      expect(await stored()).toBe(before);
      // Another token (another agent) has its own budget.
      expect((await post(w.beta.token, "beta speaks")).statusCode).toBe(201);
      clock.advance(19_000);
      expect((await post(w.alpha.token, "still early")).statusCode).toBe(429);
      clock.advance(1_000);
      expect((await post(w.alpha.token, "on time")).statusCode).toBe(201);
    },
  );

  it.skipIf(skip)(
    "refuses the post that would pass messageBytesPerMinute, counting content and metadata",
    async () => {
      await world({ messageBytesPerMinute: 1000 });
      expect((await post(w.alpha.token, "a".repeat(500))).statusCode).toBe(201);
      // 300 bytes of content and {"k":"bbb…"} of 208 bytes: 508 > the 500 left.
      const refused = await post(w.alpha.token, "a".repeat(300), undefined, { k: "b".repeat(200) });
      expect([refused.statusCode, refused.json().code]).toEqual([429, "rate_limited"]);
      expect(refused.json().details).toEqual({ limit: "messageBytesPerMinute", max: 1000 });
      // 8 bytes short at 1000 bytes a minute: 0.48 s, rounded up.
      expect(refused.headers["retry-after"]).toBe("1");
      expect((await post(w.alpha.token, "a".repeat(500))).statusCode).toBe(201);
    },
  );

  it.skipIf(skip)(
    "answers an idempotent retry of a stored post while the token is over its limit, without counting it",
    async () => {
      await world({ messagesPerMinute: 2 });
      const first = await post(w.alpha.token, "keyed", "k-1");
      expect(first.statusCode).toBe(201);
      expect((await post(w.alpha.token, "fills the bucket")).statusCode).toBe(201);
      expect((await post(w.alpha.token, "over")).statusCode).toBe(429);
      for (let i = 0; i < 3; i++) {
        const retry = await post(w.alpha.token, "keyed", "k-1");
        expect([retry.statusCode, retry.json().id, retry.headers["idempotent-replayed"]]).toEqual([
          201,
          first.json().id,
          "true",
        ]);
      }
      // A new key is a new post: still refused.
      expect((await post(w.alpha.token, "keyed", "k-2")).statusCode).toBe(429);
      // After one message's refill (30 s) exactly one new post passes: the replays took nothing.
      clock.advance(30_000);
      expect((await post(w.alpha.token, "keyed", "k-2")).statusCode).toBe(201);
      expect((await post(w.alpha.token, "and no more")).statusCode).toBe(429);
    },
  );

  it.skipIf(skip)(
    "does not count a post refused for another reason, before or inside its transaction",
    async () => {
      await world({ messagesPerMinute: 1 });
      const notInPod = await w.cap(w.alpha.token, "POST", `/pods/${w.podB.id}/messages`, { content: "x" });
      expect(notInPod.statusCode).toBe(403);
      // The reply target is checked after the quota was taken, inside the transaction: it is given back.
      const badReply = await w.cap(w.alpha.token, "POST", `/pods/${w.podA.id}/messages`, {
        content: "x",
        replyToMessageId: "msg_nowhere",
      });
      expect([badReply.statusCode, badReply.json().code]).toEqual([400, "message_not_in_pod"]);
      expect((await post(w.alpha.token, "first")).statusCode).toBe(201);
      expect((await post(w.alpha.token, "second")).statusCode).toBe(429);
    },
  );

  it.skipIf(skip)("counts a decision's question as a post", async () => {
    await world({ messagesPerMinute: 1 });
    const decision = {
      podId: w.podA.id,
      decisionClass: "strategy",
      title: "Which way?",
      question: "Left or right?",
      options: ["left", "right"],
    };
    expect((await w.cap(w.alpha.token, "POST", "/decisions", decision)).statusCode).toBe(201);
    const refused = await w.cap(w.alpha.token, "POST", "/decisions", decision);
    expect([refused.statusCode, refused.json().details?.limit]).toEqual([429, "messagesPerMinute"]);
    expect((await post(w.alpha.token, "and a post")).statusCode).toBe(429);
  });
});
