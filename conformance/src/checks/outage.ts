/**
 * Store outages (CAP-ERR-9, CAP-ERR-12), through the fixture's optional hook: two commands that make the
 * kernel's store unavailable and available again (`storeOutage.down` / `.up`, or `--store-down-cmd` /
 * `--store-up-cmd`), run under `sh -c` like `--trigger-cmd`. While the store is down, every request that
 * needs it is refused with `503 store_unavailable` and a `Retry-After` header — never a 500 — and none of
 * it is applied; once it is back, the kernel serves again by itself with what it confirmed before intact.
 *
 * Without the hook these checks are skipped, saying so: CAP alone cannot take a kernel's store away. Each
 * runs alone (no other check beside it), takes the store down once and always runs the up command, even
 * when it fails or stops early. Must never judge a request the kernel served (2xx) during the outage: a
 * kernel may serve what does not need its store (a cached token, a read while only writes are locked).
 */
import { spawn } from "node:child_process";
import { demands, type WireEvent } from "../agents.js";
import { defineCheck } from "../check.js";
import type { CheckContext } from "../context.js";
import { NetworkError } from "../http/client.js";
import type { Answer } from "../http/exchange.js";
import { carries, eventsOf, trigger } from "../queue.js";
import { arrival, now, pause, pollInterval, tolerance } from "../timing.js";
import { firstDelivery, leaseMs } from "./leases.js";

const NO_HOOK =
  "no store-outage hook (fixture storeOutage {down, up}, or --store-down-cmd and --store-up-cmd)";

/** How long the kernel may take to serve again once the up command has exited: as for an event to arrive. */
const recoveryMs = (ctx: CheckContext) => arrival(ctx.timing);

function runHook(ctx: CheckContext, cmd: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const env = { ...process.env, CAP_URL: ctx.run.settings.urls[0] ?? "" };
    const child = spawn("sh", ["-c", cmd], { env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d) => {
      stderr += String(d);
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), Math.round(60_000 * ctx.timing.timeScale));
    child.on("error", (e) => {
      clearTimeout(timer);
      resolve({ code: null, stderr: e.message });
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stderr: stderr.trim().slice(0, 300) });
    });
  });
}

/** Run `body` while the store is down; the up command runs whatever happens. */
async function duringOutage<T>(ctx: CheckContext, body: () => Promise<T>): Promise<T> {
  const hook = ctx.run.settings.storeOutage ?? ctx.skip(NO_HOOK);
  const down = await runHook(ctx, hook.down);
  let outcome: { value: T } | { error: unknown };
  try {
    if (down.code !== 0)
      ctx.incomplete(`setup failed: the store-down command exited with ${down.code}: ${down.stderr}`);
    outcome = { value: await body() };
  } catch (error) {
    outcome = { error };
  }
  const up = await runHook(ctx, hook.up);
  if ("error" in outcome) throw outcome.error;
  if (up.code !== 0)
    ctx.incomplete(`setup failed: the store-up command exited with ${up.code}: ${up.stderr}`);
  return outcome.value;
}

/** A request that needs the store, answered 2xx: the probe of recovery (agent c's `soul` memory section). */
const probe = (ctx: CheckContext, label: string) =>
  ctx.as("c").putMemory({ sections: { soul: { content: `store probe ${label} ${ctx.nonce()}` } } });

/** An answer, or what kept one from coming (a reset, a timeout), as text. */
async function answerOrSilence(send: () => Promise<Answer>): Promise<Answer | string> {
  try {
    return await send();
  } catch (e) {
    if (e instanceof NetworkError) return e.message;
    throw e;
  }
}

const shown = (a: Answer | string) =>
  typeof a === "string" ? `no answer: ${a}` : `HTTP ${a.status} ${a.exchange.responseBody.slice(0, 300)}`;

/** Probe until the kernel serves again or the recovery deadline passes; the last answer either way. */
async function recovered(
  ctx: CheckContext,
): Promise<{ ok: boolean; last: Answer | string; afterMs: number }> {
  const start = now();
  for (;;) {
    const last = await answerOrSilence(() => probe(ctx, "after"));
    const ok = typeof last !== "string" && last.status >= 200 && last.status < 300;
    if (ok || now() - start > recoveryMs(ctx)) return { ok, last, afterMs: Math.round(now() - start) };
    await pause(pollInterval(ctx.timing));
  }
}

const header = (a: Answer, name: string) =>
  Object.entries(a.headers).find(([k]) => k.toLowerCase() === name)?.[1];
/** `Retry-After` as HTTP defines it: delay-seconds or an HTTP-date. */
const validRetryAfter = (v: string | undefined) =>
  v !== undefined && (/^\s*\d+\s*$/.test(v) || !Number.isNaN(Date.parse(v)));
const codeOf = (a: Answer) => (a.body as { code?: unknown } | undefined)?.code;
const refused = (a: Answer | undefined) => a?.status === 503 && codeOf(a) === "store_unavailable";

/** Judge one answer given during the outage: served (2xx), or refused as CAP-ERR-9 says. */
function judgeDuring(ctx: CheckContext, what: string, a: Answer): void {
  if (a.status >= 200 && a.status < 300) {
    ctx.note(`${what}: served during the outage (HTTP ${a.status}), so not judged as refused`);
    return;
  }
  const retryAfter = header(a, "retry-after");
  const message = refused(a)
    ? `${what} was refused during the store outage without a valid Retry-After header`
    : `${what} during the store outage was not refused with 503 store_unavailable`;
  ctx.expect("CAP-ERR-9", refused(a) && validRetryAfter(retryAfter), {
    message,
    expected: 'HTTP 503 {"code": "store_unavailable", …} with Retry-After (seconds or an HTTP-date)',
    actual: `HTTP ${a.status}, Retry-After: ${retryAfter ?? "(none)"}, ${a.exchange.responseBody.slice(0, 300)}`,
    exchange: a,
  });
}

export const outageChecks = [
  defineCheck({
    id: "outage.store-unavailable",
    family: "outage",
    title:
      "answers 503 store_unavailable with Retry-After while the store is down, never 500, and applies nothing it refused",
    verifies: ["CAP-ERR-9"],
    queue: true,
    alone: true,
    async run(ctx: CheckContext) {
      if (!ctx.run.settings.storeOutage) ctx.skip(NO_HOOK);
      const L = leaseMs(ctx);
      const [a, b, c] = [ctx.as("a"), ctx.as("b"), ctx.as("c")];
      // Before: b holds one delivery (to ack during the outage) and has one event ready (to poll for).
      const { nonce: heldNonce, first: held } = await firstDelivery(ctx);
      const readyNonce = ctx.nonce();
      await trigger(ctx, "b", readyNonce);
      const postNonce = ctx.nonce();
      const memNonce = ctx.nonce();
      const requests = {
        post: {
          what: "a post (mentioning b)",
          send: () =>
            a.post(ctx.cast.shared, { content: `@${ctx.cast.b.name} during an outage ${postNonce}` }),
        },
        poll: { what: "a poll (with an event ready)", send: () => b.poll({ limit: 50 }) },
        ack: { what: "an ack of a held delivery", send: () => b.ack(held.event.id) },
        put: {
          what: "a memory PUT",
          send: () =>
            c.putMemory({ sections: { soul: { content: `written during an outage ${memNonce}` } } }),
        },
        get: { what: "a memory GET", send: () => c.getMemory() },
      };
      type Kind = keyof typeof requests;
      const during: Partial<Record<Kind, Answer>> = {};
      await duringOutage(ctx, async () => {
        for (const [k, r] of Object.entries(requests) as [Kind, (typeof requests)[Kind]][]) {
          const got = await answerOrSilence(r.send);
          if (typeof got !== "string") {
            during[k] = got;
            continue;
          }
          // A kernel that does not answer at all keeps a driver waiting instead of telling it to retry.
          ctx.expect("CAP-ERR-9", false, {
            message: `${r.what} got no answer during the store outage`,
            expected: "HTTP 503 store_unavailable with Retry-After, at once",
            actual: got,
          });
          break;
        }
      });
      for (const [k, answer] of Object.entries(during)) judgeDuring(ctx, requests[k as Kind].what, answer);
      const answers = Object.values(during);
      if (
        answers.length === Object.keys(requests).length &&
        answers.every((x) => x.status >= 200 && x.status < 300)
      )
        ctx.incomplete(
          "the store-down command exited 0, yet the kernel served every request: the hook did not make the store unavailable",
        );

      const back = await recovered(ctx);
      if (!back.ok)
        ctx.incomplete(
          `the kernel did not serve again within ${back.afterMs} ms after the store-up command (CAP-ERR-12, outage.recovers): nothing refused can be looked for`,
        );
      // Nothing refused was applied. Events come oldest first, so by the time a sentinel made now arrives,
      // the refused post's event — had it been enqueued — would have arrived before it.
      const sentinel = ctx.nonce();
      await trigger(ctx, "b", sentinel);
      const wantReady = refused(during.poll);
      const M = ctx.timing.maxAttempts;
      const wantHeld = refused(during.ack) && (M === undefined || held.event.attempts < M);
      let ready: WireEvent | undefined;
      let again: WireEvent | undefined;
      let sentinelSeen = false;
      const deadline = Math.max(now() + arrival(ctx.timing), held.answeredAt + L + tolerance(ctx.timing));
      for (;;) {
        const res = await b.poll({ limit: 50 });
        for (const e of eventsOf(ctx, res)) {
          if (carries(e, postNonce))
            ctx.expect("CAP-ERR-9", !refused(during.post), {
              message:
                "a post refused with 503 during the outage was applied: its mention reached b afterwards",
              expected: "no message, no event",
              actual: e,
              exchange: res,
            });
          if (carries(e, readyNonce)) ready ??= e;
          if (carries(e, heldNonce)) again ??= e;
          if (carries(e, sentinel)) sentinelSeen = true;
          await b.ack(e.id, { result: { outcome: "skipped", reason: "conformance: store outage check" } });
        }
        const done = sentinelSeen && (!wantReady || ready) && (!wantHeld || again);
        if (done || now() > deadline) break;
        await pause(pollInterval(ctx.timing));
      }
      if (!sentinelSeen)
        ctx.incomplete("setup failed: the sentinel event for b never arrived after the outage");
      if (wantReady) {
        if (!ready) ctx.incomplete("the event ready before the outage never arrived after it");
        ctx.expect("CAP-ERR-9", ready.attempts === 1, {
          message:
            "a poll refused with 503 during the outage claimed an event: it came back with attempts counted",
          expected: "attempts 1 (the refused poll claimed nothing)",
          actual: `attempts ${ready.attempts}`,
        });
      }
      if (wantHeld)
        ctx.expect("CAP-ERR-9", again !== undefined && again.attempts === held.event.attempts + 1, {
          message: "an ack refused with 503 during the outage settled the event: it was not delivered again",
          expected: `event ${held.event.id} again after its lease, attempts ${held.event.attempts + 1}`,
          actual: again ?? "not delivered again",
        });
      if (refused(during.put)) {
        const mem = await c.getMemory();
        ctx.setupAnswer(mem, demands.getMemory, "reading c's memory after the outage");
        ctx.expect("CAP-ERR-9", !JSON.stringify(mem.body).includes(memNonce), {
          message: "a memory PUT refused with 503 during the outage was applied",
          expected: "the refused write nowhere in the memory",
          actual: (mem.body as { sections?: unknown }).sections,
          exchange: mem,
        });
      }
    },
  }),
  defineCheck({
    id: "outage.recovers",
    family: "outage",
    title: "serves again by itself once the store is back, with what it confirmed before the outage intact",
    verifies: ["CAP-ERR-12"],
    queue: true,
    alone: true,
    async run(ctx: CheckContext) {
      if (!ctx.run.settings.storeOutage) ctx.skip(NO_HOOK);
      const [b, c] = [ctx.as("b"), ctx.as("c")];
      // Confirmed before the outage: a memory section of c, and a delivery b holds.
      const kept = `written before an outage ${ctx.nonce()}`;
      const put = await c.putMemory({ sections: { shared: { content: kept, visibility: "pod" } } });
      ctx.setupAnswer(put, demands.putMemory, "writing c's memory before the outage");
      const { first: held } = await firstDelivery(ctx);
      const down = await duringOutage(ctx, () => answerOrSilence(() => probe(ctx, "during")));
      if (typeof down !== "string" && down.status >= 200 && down.status < 300)
        ctx.incomplete(
          "the store-down command exited 0, yet the kernel served a memory write: the hook did not make the store unavailable",
        );
      const back = await recovered(ctx);
      ctx.assert("CAP-ERR-12", back.ok, {
        message: `the kernel did not serve a request that needs its store within ${back.afterMs} ms after the store came back`,
        expected: "HTTP 200 to a memory PUT, as before the outage",
        actual: shown(back.last),
        ...(typeof back.last === "string" ? {} : { exchange: back.last }),
      });
      const mem = await c.getMemory();
      type Memory = { sections?: { shared?: { content?: unknown } } } | undefined;
      const shared = (mem.body as Memory)?.sections?.shared;
      ctx.expect("CAP-ERR-12", mem.status === 200 && shared?.content === kept, {
        message: "a memory section written (and answered 200) before the outage is not intact after it",
        expected: kept,
        actual: `HTTP ${mem.status} ${mem.exchange.responseBody.slice(0, 300)}`,
        exchange: mem,
      });
      const ack = await b.ack(held.event.id);
      ctx.expect("CAP-ERR-12", ack.status >= 200 && ack.status < 300, {
        message: "an ack of a delivery made before the outage was not accepted after it",
        expected: "HTTP 2xx, as before the outage",
        actual: `HTTP ${ack.status} ${ack.exchange.responseBody.slice(0, 300)}`,
        exchange: ack,
      });
      // And work flows again end to end: a new mention reaches b.
      const after = ctx.nonce();
      await trigger(ctx, "b", after);
      let arrived = false;
      const deadline = now() + arrival(ctx.timing);
      let last: Answer<{ events: WireEvent[] }> | undefined;
      while (!arrived && now() < deadline) {
        last = await b.poll({ limit: 50 });
        for (const e of last.status === 200 ? eventsOf(ctx, last) : []) {
          if (carries(e, after)) arrived = true;
          await b.ack(e.id, { result: { outcome: "skipped", reason: "conformance: store outage check" } });
        }
        if (!arrived) await pause(pollInterval(ctx.timing));
      }
      ctx.expect("CAP-ERR-12", arrived, {
        message: "a mention posted after the outage never reached b",
        expected: "the event, as before the outage",
        actual: last ? `HTTP ${last.status} ${last.exchange.responseBody.slice(0, 300)}` : "no poll",
        ...(last ? { exchange: last } : {}),
      });
    },
  }),
];
