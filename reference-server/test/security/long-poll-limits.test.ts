/**
 * Waiting long-polls per runtime token (issue 30, finding 5: 3,000 concurrent long-polls from one token
 * were all accepted). A token may have `limits.maxLongPollsPerToken` polls waiting; the next is refused
 * `429 too_many_long_polls` with `Retry-After` no later than its earliest waiting poll ends; a poll that
 * does not wait, another token, and a poll after a slot frees are answered as usual.
 */
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_CONFIG } from "../../src/config.js";
import { eventually, makeWorld, type World } from "../helpers/world.js";

let w: World;
afterEach(async () => {
  await w?.app.close();
});

const waiting = (n: number) =>
  eventually(
    async () => w.kernel.hub.waiterCount(),
    (c) => c === n,
  );

describe("long-polls per token", () => {
  it("refuses the poll past maxLongPollsPerToken with too_many_long_polls and a Retry-After within the held waits", async () => {
    w = await makeWorld({ config: { limits: { maxLongPollsPerToken: 2 } } });
    const soon = w.cap(w.alpha.token, "GET", "/events?waitSeconds=2");
    const later = w.cap(w.alpha.token, "GET", "/events?waitSeconds=4");
    await waiting(2);
    const refused = await w.cap(w.alpha.token, "GET", "/events?waitSeconds=5");
    expect([refused.statusCode, refused.json().code]).toEqual([429, "too_many_long_polls"]);
    expect(refused.json().details).toEqual({ maxLongPollsPerToken: 2 });
    // The 2 s poll ends within two seconds: that is when a slot is sure to be free.
    const retryAfter = Number(refused.headers["retry-after"]);
    expect(retryAfter >= 1 && retryAfter <= 2).toBe(true);
    expect(refused.headers["cache-control"]).toBe("no-store");
    // A poll that does not wait takes no slot.
    expect((await w.cap(w.alpha.token, "GET", "/events?waitSeconds=0")).statusCode).toBe(200);
    // Another token of the same agent has slots of its own; so has another agent.
    const second = await w.adminApi("POST", `/registry/pods/${w.podA.id}/agents/alpha/runtime-tokens`, {});
    expect(second.statusCode).toBe(201);
    const others = [
      w.cap(second.json().token, "GET", "/events?waitSeconds=1"),
      w.cap(w.beta.token, "GET", "/events?waitSeconds=1"),
    ];
    await waiting(4);
    // Once the 2 s poll has answered, its slot takes the next poll.
    expect((await soon).statusCode).toBe(200);
    const next = await w.cap(w.alpha.token, "GET", "/events?waitSeconds=1");
    expect(next.statusCode).toBe(200);
    expect((await Promise.all([later, ...others])).map((r) => r.statusCode)).toEqual([200, 200, 200]);
  });

  it("frees the slot of a poll whose client hung up", async () => {
    w = await makeWorld({ config: { limits: { maxLongPollsPerToken: 1 } } });
    await w.app.listen({ host: "127.0.0.1", port: 0 });
    const address = w.app.server.address();
    const port = typeof address === "object" && address ? address.port : 0;
    const gone = new AbortController();
    const first = fetch(`http://127.0.0.1:${port}/api/agents/runtime/events?waitSeconds=20`, {
      headers: { authorization: `Bearer ${w.alpha.token}` },
      signal: gone.signal,
    }).catch(() => "aborted");
    await waiting(1);
    expect((await w.cap(w.alpha.token, "GET", "/events?waitSeconds=1")).statusCode).toBe(429);
    gone.abort();
    expect(await first).toBe("aborted");
    await waiting(0);
    const next = await w.cap(w.alpha.token, "GET", "/events?waitSeconds=1");
    expect(next.statusCode).toBe(200);
  });

  it(`holds the audit's flood at the default: of 100 concurrent long-polls from one token, ${DEFAULT_CONFIG.limits.maxLongPollsPerToken} wait`, async () => {
    w = await makeWorld();
    const max = DEFAULT_CONFIG.limits.maxLongPollsPerToken;
    let settled = 0;
    const polls = Array.from({ length: 100 }, () =>
      w.cap(w.alpha.token, "GET", "/events?waitSeconds=20").finally(() => settled++),
    );
    // Which of the 100 got a slot depends on arrival order: wait until the others are answered, then count.
    await eventually(
      async () => [settled, w.kernel.hub.waiterCount()],
      ([s, c]) => s === 100 - max && c === max,
    );
    await w.app.close(); // releases the waiting polls with []
    const all = await Promise.all(polls);
    const tally = new Map<string, number>();
    for (const r of all) {
      const key = `${r.statusCode} ${r.statusCode === 200 ? "" : r.json().code}`.trim();
      tally.set(key, (tally.get(key) ?? 0) + 1);
    }
    expect(Object.fromEntries(tally)).toEqual({ "200": max, "429 too_many_long_polls": 100 - max });
  });
});
