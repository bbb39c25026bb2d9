/**
 * Redelivery, the way production loses work: an ack whose answer never arrives (the fault layer resets
 * the connection without passing the ack on, so the lease ends and the kernel redelivers the event with
 * `attempts + 1`), and a handler that outlasts the lease (the fault layer holds the driver's reply to an
 * @mention for two and a half leases). Either way the pod must show at most one effect of the event —
 * dedup by id or an Idempotency-Key the kernel replays, both pass — and the driver must come back for the
 * redelivery. Whether the driver renewed the lease of its long handler is a SHOULD of its own
 * (CAP-DRV-5), judged by a scenario of its own, so a driver author sees it by name.
 */
import { defineDriverCheck } from "../check.js";
import type { DriverContext } from "../context.js";
import type { ProxyScript } from "../fault-proxy.js";
import { ackResults, polledEvents } from "./support.js";

/** At most one reply of this scenario's single event in the pod. */
async function expectOneEffect(ctx: DriverContext, eventId: string): Promise<void> {
  const posted = await ctx.world.agentMessages(ctx.agent);
  ctx.expect("CAP-DRV-1", posted.length <= 1, {
    message: `event ${eventId} was delivered more than once and the pod shows ${posted.length} replies to it`,
    expected: "at most one message in the pod for one event",
    actual: posted.map((m) => `${m.id}: ${m.content.slice(0, 80)}`),
    wire: ctx.wire("poll", "post", "ack", "batch-ack", "renew", "release"),
  });
}

/**
 * An @mention whose reply the fault layer holds for 2.5 leases; waits until the event is acked (or a
 * deadline). Undefined, with a note, when the driver posted no reply, so no handler outlasted the lease.
 */
async function slowTurn(ctx: DriverContext, words: string) {
  let held = false;
  const hold = Math.round(2.5 * ctx.leaseMs);
  const script: ProxyScript = {
    before(req) {
      if (req.kind !== "post" || held) return undefined;
      held = true;
      return { kind: "delay", ms: hold };
    },
  };
  await ctx.begin({ script });
  const { event } = await ctx.say(ctx.pod(), `@${ctx.agent.name} ${words} ${ctx.nonce()}`);
  const acked = await ctx.acked(event.id, ctx.handleMs + hold + ctx.ms(3 * ctx.leaseMs));
  if (!acked) ctx.note(`${event.id} was not acked by the deadline${ctx.processNote()}`);
  if (!held) {
    ctx.note("the driver posted no reply, so its handler did not outlast the lease");
    return undefined;
  }
  return { event, hold };
}

export const redeliveryChecks = [
  defineDriverCheck({
    id: "driver.idempotency.lost-ack",
    family: "idempotency",
    title:
      "an ack lost to a connection reset and the event redelivered with attempts + 1: no second effect, and the redelivery is acked",
    verifies: ["CAP-DRV-1", "CAP-DRV-13"],
    async run(ctx) {
      const redelivered = new Set<string>();
      const lost = new Set<string>();
      const script: ProxyScript = {
        before(req) {
          if (req.kind !== "ack" && req.kind !== "batch-ack") return undefined;
          const ids =
            req.kind === "ack"
              ? [req.eventId ?? ""]
              : (((req.json as { acks?: { id?: string }[] })?.acks ?? []).map(
                  (a) => a?.id ?? "",
                ) as string[]);
          // Every ack of a first delivery is lost until the kernel has redelivered that event.
          if (ids.some((id) => !redelivered.has(id))) {
            for (const id of ids) lost.add(id);
            return { kind: "reset" };
          }
          return undefined;
        },
        after(req, answer) {
          if (req.kind === "poll")
            for (const e of polledEvents(answer))
              if (typeof e.id === "string" && lost.has(e.id) && Number(e.attempts) > 1) redelivered.add(e.id);
          return undefined;
        },
      };
      await ctx.begin({ script });
      const { event } = await ctx.say(ctx.pod(), `@${ctx.agent.name} please answer once ${ctx.nonce()}`);
      const deadline = ctx.handleMs + ctx.ms(4000 + 3 * ctx.leaseMs);
      const acked = await ctx.acked(event.id, deadline);
      if (!lost.has(event.id))
        ctx.expect("CAP-DRV-13", false, {
          message: `the driver never acked ${event.id}, so no ack could be lost${ctx.processNote()}`,
          expected: `POST /events/${event.id}/ack`,
          actual: "no ack",
        });
      else
        ctx.expect("CAP-DRV-13", acked, {
          message: `after its ack was lost, the driver did not ack the redelivered ${event.id} within ${deadline} ms${ctx.processNote()}`,
          expected: redelivered.has(event.id)
            ? `an ack of ${event.id} after its redelivery`
            : `a poll after the lease of ${event.id} ended, which redelivers it`,
          actual: redelivered.has(event.id) ? "no ack after the redelivery" : "no poll got the redelivery",
        });
      await expectOneEffect(ctx, event.id);
    },
  }),
  defineDriverCheck({
    id: "driver.leases.slow-handler",
    family: "leases",
    title: "a handler that outlasts the lease (its reply held for 2.5 leases): at most one effect in the pod",
    verifies: ["CAP-DRV-1"],
    async run(ctx) {
      const turn = await slowTurn(ctx, "take your time");
      if (turn) await expectOneEffect(ctx, turn.event.id);
    },
  }),
  defineDriverCheck({
    id: "driver.leases.renews-long-handler",
    family: "leases",
    title:
      "a handler that outlasts the lease (its reply held for 2.5 leases): the driver renews the lease it holds before it ends",
    verifies: ["CAP-DRV-5"],
    async run(ctx) {
      const turn = await slowTurn(ctx, "a long one");
      if (!turn) return;
      const { event, hold } = turn;
      const renews = ctx.wire("renew").filter((x) => x.eventId === event.id);
      // A cancel watch answered without a cancel renewed the lease too (CAP-CANCEL-9): a driver that
      // watches needs no renew of its own.
      const watched = ctx
        .wire("cancel-watch")
        .filter(
          (x) =>
            x.eventId === event.id &&
            x.status === 200 &&
            (x.json as { cancelRequested?: unknown } | undefined)?.cancelRequested === false,
        );
      const good = [...renews.filter((x) => x.status === 200), ...watched];
      const redelivered = ctx
        .wire("poll")
        .some((x) => polledEvents(x).some((e) => e.id === event.id && Number(e.attempts) > 1));
      ctx.expect("CAP-DRV-5", good.length > 0, {
        message: redelivered
          ? `the lease of ${event.id} ran out while the driver was still handling it, and the kernel redelivered it`
          : `the driver handled ${event.id} for ${hold} ms, 2.5 leases, without renewing its lease`,
        expected: `POST /events/${event.id}/renew (or a cancel watch of it) answered 200 before the lease (${ctx.leaseMs} ms) ended`,
        actual: renews.length === 0 ? "no renew" : renews.map((r) => `renew → ${r.status}`).join(", "),
        wire: ctx.wire("poll", "post", "renew", "cancel-watch", "ack", "batch-ack"),
      });
      for (const x of ctx.wire("ack", "batch-ack"))
        if (ackResults(x, event.id).length > 0 && x.status !== 200)
          ctx.note(`ack of ${event.id} answered ${x.status}`);
    },
  }),
  defineDriverCheck({
    id: "driver.leases.stop-releases",
    family: "leases",
    title:
      "stopped (SIGTERM) while its reply is held: the driver finishes and acks the event, or releases it, before it exits",
    verifies: ["CAP-REL-11"],
    needsProcess: true,
    async run(ctx) {
      const hold = Math.round(1.5 * ctx.leaseMs);
      let held = false;
      const script: ProxyScript = {
        before(req) {
          if (req.kind !== "post" || held) return undefined;
          held = true;
          return { kind: "delay", ms: hold };
        },
      };
      await ctx.begin({ script });
      const { event } = await ctx.say(ctx.pod(), `@${ctx.agent.name} stop while you answer ${ctx.nonce()}`);
      const busy = await ctx.waitFor(() => held, ctx.handleMs);
      if (!busy) {
        ctx.note("the driver posted no reply, so it was never stopped mid-handling");
        return;
      }
      const stopped = Date.now();
      await ctx.driver?.stop(ctx.ms(5000) + hold);
      const state = await ctx.world.event(event.id);
      const released = ctx
        .wire("release")
        .some((x) => x.eventId === event.id && x.status === 200 && x.at >= stopped);
      ctx.expect("CAP-REL-11", state?.state === "acked" || released, {
        message: `stopped while handling ${event.id}, the driver exited (${ctx.driver?.describeExit()}) leaving it to wait out its lease`,
        expected: `POST /events/${event.id}/ack after the held reply, or POST /events/${event.id}/release, before exiting`,
        actual: `event ${state?.state ?? "unknown"}, ${released ? "released" : "not released"}`,
        wire: ctx.wire("poll", "post", "ack", "batch-ack", "release"),
      });
    },
  }),
];
