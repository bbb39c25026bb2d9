/**
 * A running turn cancelled (`cancel`): the driver's reply to an @mention is held by the fault layer, so its
 * handler is still working when the suite, as a human of the pod, cancels the event. A driver that watches
 * the delivery (CAP-CANCEL-16: `waitSeconds` ≥ 20, no tight loop) is told by the watch; one whose watch
 * never answers is told by its next renew (`409` with `details.cancelled`). Told either way, it must post
 * nothing more for the event but at most one short one-line note (CAP-CANCEL-17) and should ack it with
 * outcome `cancelled` (CAP-CANCEL-18). A driver never told — it neither watches nor renews — is judged on
 * nothing but the watch it should have made.
 */
import { defineDriverCheck } from "../check.js";
import type { DriverContext } from "../context.js";
import type { ProxyScript, WireExchange } from "../fault-proxy.js";
import type { EventState } from "../world.js";
import { ackResults, acksOf, waitSecondsOf } from "./support.js";

/** The longest post that still counts as a short "stopped" note (one line). */
export const STOP_NOTE_MAX = 280;
/** The watch a driver should hold per running turn: at least this many seconds. */
const MIN_WAIT = 20;

const isStopNote = (x: WireExchange) => {
  const content = (x.requestJson as { content?: unknown } | undefined)?.content;
  return typeof content === "string" && content.length <= STOP_NOTE_MAX && !content.includes("\n");
};

const watchesOf = (ctx: DriverContext, eventId: string) =>
  ctx.wire("cancel-watch").filter((x) => x.eventId === eventId);

/** When the driver was told: the end of the first watch answer saying so, or of a renew refused for it. */
function toldOf(ctx: DriverContext, eventId: string): WireExchange | undefined {
  return ctx
    .wire("cancel-watch", "renew")
    .filter((x) => x.eventId === eventId && x.status !== 0)
    .filter((x) =>
      x.kind === "cancel-watch"
        ? x.status === 200 && (x.json as { cancelRequested?: unknown } | undefined)?.cancelRequested === true
        : x.status === 409 &&
          (x.json as { details?: { cancelled?: unknown } } | undefined)?.details?.cancelled === true,
    )
    .sort((x, y) => x.endAt - y.endAt)[0];
}

/** A request long enough that an echo of it is no short note, mentioning the agent so echo drivers answer. */
const request = (ctx: DriverContext) =>
  `@${ctx.agent.name} please work on this for a while ${ctx.nonce()}: ${"the conformance suite keeps talking so that any echo of this is longer than a short note. ".repeat(4)}`;

interface Turn {
  event: EventState;
  cancelAt: number;
  told?: WireExchange;
}

/**
 * Start a turn, hold its reply, cancel it as the human once the driver had a moment to start watching, and
 * wait until the driver acked it after the cancel, or the hold and a handling time have passed.
 */
async function cancelRunningTurn(
  ctx: DriverContext,
  o: { silenceWatch: boolean },
): Promise<Turn | undefined> {
  const hold = ctx.ms(Math.max(4000, 3 * ctx.leaseMs));
  let held = false;
  const script: ProxyScript = {
    before(req) {
      // A watch that never answers within the scenario: the driver can only learn at a renew.
      if (req.kind === "cancel-watch" && o.silenceWatch)
        return { kind: "reset-after", ms: hold + ctx.handleMs };
      if (req.kind !== "post" || held) return undefined;
      held = true;
      return { kind: "delay", ms: hold };
    },
  };
  await ctx.begin({ script });
  const { event } = await ctx.say(ctx.pod(), request(ctx));
  if (!(await ctx.waitFor(() => held, ctx.handleMs))) {
    ctx.note(`the driver posted no reply to ${event.id}, so no running handler was there to cancel`);
    return undefined;
  }
  await ctx.waitFor(() => watchesOf(ctx, event.id).length > 0, ctx.ms(500));
  const answer = await ctx.world.cancel(event.podId, event.id, "conformance: stop");
  const cancelAt = Date.now();
  if (!answer?.changed) ctx.incomplete(`the kernel did not cancel ${event.id}: ${JSON.stringify(answer)}`);
  const ackedSince = () => acksOf(ctx, event.id).some((x) => x.at >= cancelAt && x.status === 200);
  await ctx.waitFor(ackedSince, hold + ctx.handleMs);
  // A moment more to see whatever the driver still posts once it has acked.
  await ctx.waitFor(() => false, ctx.ms(500));
  const told = toldOf(ctx, event.id);
  return { event, cancelAt, ...(told ? { told } : {}) };
}

/** CAP-CANCEL-17 and -18, judged from the moment the driver was told. */
function judgeStop(ctx: DriverContext, turn: Turn): void {
  const { event, told } = turn;
  if (!told) {
    ctx.note(
      `the driver was never told of the cancel of ${event.id} (no watch answered it, no renew was refused for it): CAP-CANCEL-17 and -18 do not apply`,
    );
    return;
  }
  const how = told.kind === "cancel-watch" ? "its watch" : "a renew answered 409";
  const posts = ctx.wire("post").filter((x) => x.at >= told.endAt);
  ctx.expect(
    "CAP-CANCEL-17",
    posts.length === 0 || (posts.length === 1 && isStopNote(posts[0] as WireExchange)),
    {
      message: `told of the cancel of ${event.id} by ${how}, the driver posted ${posts.length} message(s) afterwards`,
      expected: `nothing, or one one-line "stopped" note of at most ${STOP_NOTE_MAX} characters`,
      actual: posts.map(
        (x) => `POST ${x.podId}: ${String((x.requestJson as { content?: unknown })?.content).slice(0, 120)}`,
      ),
      wire: [told, ...posts],
    },
  );
  const ack = acksOf(ctx, event.id).find((x) => x.at >= told.endAt);
  const outcome = ack ? (ackResults(ack, event.id)[0] as { outcome?: unknown } | null)?.outcome : undefined;
  ctx.expect("CAP-CANCEL-18", outcome === "cancelled", {
    message: ack
      ? `told of the cancel of ${event.id} by ${how}, the driver acked it with another outcome`
      : `told of the cancel of ${event.id} by ${how}, the driver did not ack it${ctx.processNote()}`,
    expected: `POST /events/${event.id}/ack {"result": {"outcome": "cancelled", …}} once the handler stopped`,
    actual: ack ? (ack.requestBody ?? "an ack without a body") : "no ack",
    wire: [told, ...acksOf(ctx, event.id)],
  });
}

export const cancelChecks = [
  defineDriverCheck({
    id: "driver.cancel.running-handler",
    family: "cancel",
    title:
      "a running handler cancelled by a human: the driver watched the delivery (waitSeconds ≥ 20), then stops, posts nothing more and acks cancelled",
    verifies: ["CAP-CANCEL-16", "CAP-CANCEL-17", "CAP-CANCEL-18"],
    async run(ctx) {
      const turn = await cancelRunningTurn(ctx, { silenceWatch: false });
      if (!turn) return;
      const { event, cancelAt, told } = turn;
      const watches = watchesOf(ctx, event.id);
      const calm = watches.filter((x) => x.at < (told?.endAt ?? cancelAt));
      const short = calm.filter((x) => waitSecondsOf(x) < MIN_WAIT);
      // One watch per 20 s, plus one retry per watch that ended otherwise than answered 200.
      const first = calm[0];
      const retries = calm.filter((x) => x.status !== 200 && x.endAt < cancelAt).length;
      const bound = first ? 1 + Math.floor((cancelAt - first.at) / (MIN_WAIT * 1000)) + retries : 0;
      ctx.expect("CAP-CANCEL-16", watches.length > 0 && short.length === 0 && calm.length <= bound, {
        message:
          watches.length === 0
            ? `the driver never watched delivery ${event.id} while its handler worked on it`
            : short.length > 0
              ? `the driver watched delivery ${event.id} with waitSeconds below ${MIN_WAIT}`
              : `the driver watched delivery ${event.id} ${calm.length} times before the cancel`,
        expected: `GET /events/${event.id}/cancellation?attempts=<its delivery>&waitSeconds=N with N ≥ ${MIN_WAIT}, at most one per ${MIN_WAIT} s`,
        actual:
          watches.length === 0
            ? "no watch"
            : calm.map((x) => `${new URL(x.url).search} → ${x.status}`).slice(0, 5),
        wire: watches.length > 0 ? watches.slice(0, 10) : ctx.wire("poll", "post", "renew"),
      });
      judgeStop(ctx, turn);
    },
  }),
  defineDriverCheck({
    id: "driver.cancel.renew-backstop",
    family: "cancel",
    title:
      "a running handler cancelled while its watch stays silent: told by the renew answered 409 with details.cancelled, the driver stops, posts nothing more and acks cancelled",
    verifies: ["CAP-CANCEL-17", "CAP-CANCEL-18"],
    async run(ctx) {
      const turn = await cancelRunningTurn(ctx, { silenceWatch: true });
      if (turn) judgeStop(ctx, turn);
    },
  }),
];
