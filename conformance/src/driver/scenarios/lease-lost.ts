/**
 * Answers that take an event away from the driver. A lost lease: once the driver's reply is in flight
 * (held, then answered `502`, nothing posted), every renew and cancellation watch of that delivery is
 * answered `409 lease_lost`, as a kernel does once another poller holds the event; from the first such answer on,
 * the driver posts nothing for that delivery (CAP-DRV-21) — the event comes back to it later as a new
 * delivery, which it may answer. And an event that is gone: the driver's ack of an @mention is passed on
 * and answered `404 event_not_found` (in a batch, as that item's result); the driver settles it and goes
 * on to handle the next @mention (CAP-DRV-20).
 */
import { defineDriverCheck } from "../check.js";
import type { ProxyRequest, ProxyScript, WireExchange } from "../fault-proxy.js";
import { ackResults, polledEvents } from "./support.js";

const LOST = { kind: "status", status: 409, code: "lease_lost" } as const;

/** The delivery (`attempts`) a renew or a cancellation watch names. */
function deliveryOf(req: ProxyRequest): number | undefined {
  const n =
    req.kind === "renew"
      ? (req.json as { attempts?: unknown } | undefined)?.attempts
      : req.url.searchParams.get("attempts");
  return n === undefined || n === null ? undefined : Number(n);
}

export const leaseLostChecks = [
  defineDriverCheck({
    id: "driver.leases.lost-stops-posts",
    family: "leases",
    title:
      "a renew or cancellation watch answered 409 lease_lost while the reply is in flight (then answered 502): the driver posts nothing more for that delivery",
    verifies: ["CAP-DRV-21"],
    async run(ctx) {
      const nonce = ctx.nonce();
      let target: string | undefined;
      // The delivery the driver holds when its lease is taken, and what it last got for the event.
      let lostDelivery: number | undefined;
      let delivered = 0;
      // Arrival times of the posts for the lost delivery that came after its 409 (the proxy runs one
      // script call at a time, so "after" is the order the fault layer saw, never a clock tie).
      const late = new Set<number>();
      const cap = () => new Promise<false>((ok) => setTimeout(() => ok(false), ctx.ms(1.5 * ctx.leaseMs)));
      // The driver's reply is in flight (held): only then is its lease taken, so the 409 cannot overtake
      // the handler's first post.
      let posting = () => {};
      const posted = new Promise<true>((ok) => {
        posting = () => ok(true);
      });
      // Resolved a moment after the first 409 went out, so the driver has it before its post's answer.
      let tell = () => {};
      const lostSent = new Promise<void>((ok) => {
        tell = () => setTimeout(ok, 20);
      });
      const script: ProxyScript = {
        async before(req) {
          if (!target) return undefined;
          if ((req.kind === "renew" || req.kind === "cancel-watch") && req.eventId === target) {
            const n = deliveryOf(req);
            if (lostDelivery === undefined && n === delivered) {
              // A handler that never posts has nothing to lose under it: its renew goes through.
              if (!(await Promise.race([posted, cap()]))) return undefined;
              if (lostDelivery === undefined) {
                lostDelivery = n;
                tell();
              }
            }
            if (n !== undefined && n === lostDelivery)
              return {
                ...LOST,
                message: `delivery ${n} of ${target} is no longer held: another poller has it`,
              };
            return undefined;
          }
          // Sent once the 409 was decided, before a later delivery reached the driver: for the lost one.
          if (
            req.kind === "post" &&
            req.body.includes(nonce) &&
            lostDelivery !== undefined &&
            delivered === lostDelivery
          )
            late.add(req.at);
          // Until the lease is taken the reply cannot get through: it is held until the 409 has gone out
          // (at most 1.5 leases), then answered 502 and never posted. A driver that heeds the 409 retries
          // nothing; one that does not retries on its own backoff, after the 409, and is seen.
          if (
            req.kind === "post" &&
            req.body.includes(nonce) &&
            lostDelivery === undefined &&
            delivered === 1
          ) {
            posting();
            await Promise.race([lostSent, cap()]);
            return { kind: "status", status: 502, code: "x_conformance_bad_gateway", message: "no upstream" };
          }
          return undefined;
        },
        after(req, answer) {
          if (req.kind !== "poll") return undefined;
          for (const e of polledEvents(answer))
            if (JSON.stringify(e).includes(nonce) && typeof e.id === "string") {
              target = e.id;
              delivered = Math.max(delivered, Number(e.attempts));
            }
          return undefined;
        },
      };
      await ctx.begin({ script });
      const { event } = await ctx.say(
        ctx.pod(),
        `@${ctx.agent.name} a reply that cannot get through ${nonce}`,
      );
      // The event comes back as a new delivery once its lease ends; the driver answers that one and acks.
      const acked = await ctx.acked(event.id, ctx.handleMs + ctx.ms(3 * ctx.leaseMs));
      const told = ctx
        .wire("renew", "cancel-watch")
        .find((x) => x.eventId === event.id && x.status === 409 && x.fault !== undefined);
      if (!told) {
        ctx.note(
          `the driver neither renewed nor watched delivery 1 of ${event.id} while its reply failed, so no lease was lost under it${acked ? "" : ctx.processNote()}`,
        );
        return;
      }
      const posts = ctx.wire("post").filter((x) => late.has(x.at) && (x.requestBody ?? "").includes(nonce));
      const how = told.kind === "renew" ? "a renew" : "a cancellation watch";
      ctx.expect("CAP-DRV-21", posts.length === 0, {
        message: `after ${how} of delivery ${lostDelivery} of ${event.id} was answered 409 lease_lost, the driver posted ${posts.length} more time(s) for that delivery`,
        expected: `no post for delivery ${lostDelivery} after the 409 (a later delivery may be answered)`,
        actual: posts.map((x) => `POST ${new URL(x.url).pathname} → ${x.status}`),
        wire: [told, ...posts] as WireExchange[],
      });
      if (!acked) ctx.note(`${event.id} was not acked by the deadline${ctx.processNote()}`);
    },
  }),
  defineDriverCheck({
    id: "driver.handling.ack-not-found",
    family: "handling",
    title:
      "an ack answered 404 event_not_found (the event is gone): the driver keeps running and handles the next @mention",
    verifies: ["CAP-DRV-20"],
    async run(ctx) {
      const nonce = ctx.nonce();
      let target: string | undefined;
      let gone: true | undefined;
      const script: ProxyScript = {
        before(req) {
          if (!target || gone !== undefined || req.kind !== "ack" || req.eventId !== target) return undefined;
          gone = true;
          return {
            kind: "lose-answer",
            instead: { status: 404, code: "event_not_found", message: "no such event for this agent" },
          };
        },
        after(req, answer) {
          if (req.kind === "poll")
            for (const e of polledEvents(answer))
              if (JSON.stringify(e).includes(nonce) && typeof e.id === "string") target = e.id;
          // In a batch, the gone event's item says so; the kernel settled it all the same.
          if (!target || gone !== undefined || req.kind !== "batch-ack" || answer.status !== 200)
            return undefined;
          const results = (answer.json as { results?: { id?: unknown }[] } | undefined)?.results;
          if (!Array.isArray(results) || !results.some((r) => r?.id === target)) return undefined;
          gone = true;
          return {
            ...(answer.json as object),
            results: results.map((r) =>
              r?.id === target ? { id: target, ok: false, code: "event_not_found" } : r,
            ),
          };
        },
      };
      await ctx.begin({ script });
      const { event: first } = await ctx.say(ctx.pod(), `@${ctx.agent.name} first ${nonce}`);
      const refused = await ctx.waitFor(() => gone !== undefined, ctx.handleMs);
      if (!refused) {
        ctx.note(`the driver did not ack ${first.id} within ${ctx.handleMs} ms${ctx.processNote()}`);
        return;
      }
      const { event: next } = await ctx.say(ctx.pod(), `@${ctx.agent.name} and the next one ${ctx.nonce()}`);
      const acked = await ctx.acked(next.id, ctx.handleMs);
      const wire = ctx
        .wire("poll", "post", "ack", "batch-ack")
        .filter((x) => x.kind !== "poll" || polledEvents(x).length > 0 || x.status !== 200);
      ctx.expect("CAP-DRV-20", acked, {
        message:
          ctx.driver && !ctx.driver.running
            ? `the driver exited (${ctx.driver.describeExit()}) after its ack of ${first.id} was answered 404 event_not_found${ctx.processNote()}`
            : `after its ack of ${first.id} was answered 404 event_not_found, the driver did not handle the next event ${next.id} within ${ctx.handleMs} ms`,
        expected: `${first.id} settled as gone, then POST /events/${next.id}/ack`,
        actual: acked ? "acked" : `next event ${(await ctx.world.event(next.id))?.state ?? "unknown"}`,
        wire,
      });
      const refusals = ctx
        .wire("ack", "batch-ack")
        .filter((x) => ackResults(x, first.id).length > 0 && x.fault !== undefined);
      if (refusals.length > 0) ctx.note(`the fault layer answered: ${refusals[0]?.fault}`);
    },
  }),
];
