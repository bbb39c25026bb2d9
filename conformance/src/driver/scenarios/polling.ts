/**
 * Idle behaviour and optional features. With nothing queued a driver does not spin: a long-polling
 * driver waits, an interval driver polls at its interval (CAP-DRV-14), and it long-polls when the kernel
 * advertises `long-poll` (CAP-DRV-15). With every optional feature hidden from `/info` (and `waitSeconds`
 * ignored, as a kernel without long-poll does), it uses none of them and still does not spin (CAP-DRV-16).
 */
import { FEATURES } from "@commonly/cap-spec/constants";
import { defineDriverCheck } from "../check.js";
import type { DriverContext } from "../context.js";
import type { ProxyScript } from "../fault-proxy.js";
import { pollsBetween, waitSecondsOf } from "./support.js";

/** Judge the poll rate from `from` until now, watching at least three seconds (scaled). */
async function expectCalm(ctx: DriverContext, from: number, requirement: string): Promise<void> {
  await ctx.waitFor(() => Date.now() >= from + ctx.ms(3000), ctx.ms(3000) + 1000);
  const windowMs = Date.now() - from;
  const polls = pollsBetween(ctx, from, from + windowMs);
  const bound = Math.floor(windowMs / 1000) + 1;
  ctx.expect(requirement, polls.length <= bound, {
    message: `with nothing (or one event) queued the driver polled ${polls.length} times in ${windowMs} ms`,
    expected: `at most ${bound} polls (one a second)`,
    actual: `${polls.length} polls, waitSeconds ${[...new Set(polls.map(waitSecondsOf))].join("/")}`,
    wire: polls,
  });
}

/** Optional features the suite can hide; `/info` then advertises none of them. */
const OPTIONAL: readonly string[] = FEATURES.filter((f) => f !== "info");

const hideAll: ProxyScript = {
  before(req) {
    if (req.kind === "poll") req.url.searchParams.delete("waitSeconds");
    return undefined;
  },
  after(req, answer) {
    if (req.kind !== "info" || answer.status !== 200) return undefined;
    const body = answer.json as { features?: unknown[] };
    return { ...body, features: (body.features ?? []).filter((f) => !OPTIONAL.includes(String(f))) };
  },
};

export const pollingChecks = [
  defineDriverCheck({
    id: "driver.polling.idle",
    family: "polling",
    title: "with nothing queued it does not spin: at most one poll a second, long-polling when advertised",
    verifies: ["CAP-DRV-14", "CAP-DRV-15"],
    async run(ctx) {
      await ctx.begin();
      const first = ctx.wire("poll")[0];
      await expectCalm(ctx, first?.at ?? Date.now(), "CAP-DRV-14");
      const polls = ctx.wire("poll");
      ctx.expect(
        "CAP-DRV-15",
        polls.some((x) => waitSecondsOf(x) > 0),
        {
          message: "the kernel advertises long-poll but the driver never sent waitSeconds",
          expected: "GET /events?waitSeconds=N with N > 0",
          actual: polls.map((x) => new URL(x.url).search).slice(0, 5),
          wire: polls.slice(0, 5),
        },
      );
    },
  }),
  defineDriverCheck({
    id: "driver.features.unadvertised",
    family: "features",
    title:
      "with no optional feature in /info (and waitSeconds ignored) it never renews, releases, batch-acks or watches for cancels, and does not spin",
    verifies: ["CAP-DRV-16", "CAP-DRV-14"],
    restart: true,
    hidesFeatures: true,
    async run(ctx) {
      let held = false;
      const hold = Math.round(2.5 * ctx.leaseMs);
      const script: ProxyScript = {
        before(req) {
          hideAll.before?.(req);
          if (req.kind === "post" && !held) {
            held = true;
            return { kind: "delay", ms: hold };
          }
          return undefined;
        },
        after: hideAll.after,
      };
      await ctx.begin({ script });
      const { event } = await ctx.say(ctx.pod(), `plain CAP only ${ctx.nonce()}`);
      const acked = await ctx.acked(event.id, ctx.handleMs + hold);
      if (!acked) ctx.note(`${event.id} was not acked by the deadline${ctx.processNote()}`);
      await expectCalm(ctx, ctx.wire("poll")[0]?.at ?? Date.now(), "CAP-DRV-14");
      // A pollId is an unknown query parameter to such a kernel (CAP-COMPAT-3), not a use of the feature.
      const used = ctx.wire("renew", "release", "batch-ack", "cancel", "cancel-watch");
      ctx.expect("CAP-DRV-16", used.length === 0, {
        message: "the driver called optional routes the kernel's /info does not advertise",
        expected: "no renew, release, batch ack, cancel or cancellation watch",
        actual: used.map((x) => `${x.method} ${new URL(x.url).pathname}${new URL(x.url).search}`).slice(0, 5),
        wire: used,
      });
    },
  }),
];
