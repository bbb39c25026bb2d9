/** Broken kernels for the event queue: auth-free of course, each breaking one delivery behaviour. */
import { type BrokenKernel, type Ev, eventsIn, is, isPoll } from "./env.js";
import { reply } from "./proxy.js";

export const eventKernels: BrokenKernel[] = [
  {
    name: "drops attempts increments (every delivery says attempts 1)",
    breaks: "CAP-EVT-5",
    only: ["leases.redelivered-after-expiry"],
    make: () => ({
      response(req, res) {
        if (isPoll(req)) for (const e of eventsIn(res.json)) e.attempts = 1;
        return res;
      },
    }),
  },
  {
    name: "ignores limit",
    breaks: "CAP-EVT-1",
    only: ["events.limit-honoured"],
    make: () => ({
      request(req) {
        if (isPoll(req)) req.url.searchParams.delete("limit");
        return req;
      },
    }),
  },
  {
    name: "clamps an out-of-range limit instead of answering 400",
    breaks: "CAP-EVT-2",
    only: ["events.poll-parameters"],
    make: () => ({
      request(req) {
        const limit = Number(req.url.searchParams.get("limit") ?? 20);
        if (isPoll(req) && !(limit >= 1 && limit <= 50 && Number.isInteger(limit)))
          req.url.searchParams.set("limit", "20");
        return req;
      },
    }),
  },
  {
    name: "reorders events (newest first)",
    breaks: "CAP-EVT-8",
    only: ["events.oldest-first"],
    make: () => ({
      response(req, res) {
        if (isPoll(req)) eventsIn(res.json).reverse();
        return res;
      },
    }),
  },
  {
    name: "redelivers a leased event to the next poll",
    breaks: "CAP-LEASE-2",
    only: ["leases.invisible-while-leased"],
    make: () => {
      const last = new Map<string, Ev[]>();
      return {
        response(req, res) {
          if (!isPoll(req) || res.status !== 200) return res;
          const events = eventsIn(res.json);
          const before = last.get(req.token ?? "") ?? [];
          last.set(req.token ?? "", [...events]);
          for (const e of before) if (!events.some((x) => x.id === e.id)) events.push(e);
          return res;
        },
      };
    },
  },
  {
    name: "never redelivers an unacked event",
    breaks: "CAP-LEASE-3",
    only: ["leases.redelivered-after-expiry"],
    make: () => ({
      response(req, res) {
        if (isPoll(req) && res.status === 200) {
          const json = res.json as { events: Ev[] };
          json.events = json.events.filter((e) => e.attempts === 1);
        }
        return res;
      },
    }),
  },
  {
    name: "delivers an acked event again",
    breaks: "CAP-ACK-4",
    only: ["ack.final"],
    make: () => {
      const acked: Ev[] = [];
      const seen = new Map<string, Ev>();
      return {
        response(req, res) {
          if (isPoll(req)) {
            for (const e of eventsIn(res.json)) seen.set(e.id, e);
            const back = acked.splice(0);
            eventsIn(res.json).push(...back);
          }
          const m = /\/events\/([^/]+)\/ack$/.exec(req.url.pathname);
          const e = m && seen.get(decodeURIComponent(m[1] ?? ""));
          if (m && e && res.status === 200 && !acked.includes(e)) acked.push(e);
          return res;
        },
      };
    },
  },
  {
    name: "is not idempotent on ack (a second ack is 404)",
    breaks: "CAP-ACK-3",
    only: ["ack.idempotent"],
    make: () => {
      const acked = new Set<string>();
      return {
        response(req, res) {
          if (!is(req, "POST", /^\/events\/[^/]+\/ack$/)) return res;
          if (acked.has(req.url.pathname))
            return reply(404, { code: "event_not_found", message: "No such event." });
          if (res.status === 200) acked.add(req.url.pathname);
          return res;
        },
      };
    },
  },
  {
    name: "holds a long-poll for its whole wait even when an event arrives",
    breaks: "CAP-POLL-2",
    only: ["long-poll.wakes-on-event"],
    make: () => ({
      async request(req) {
        const wait = Number(req.url.searchParams.get("waitSeconds") ?? 0);
        if (isPoll(req) && wait > 0) {
          await new Promise((r) => setTimeout(r, wait * 1000));
          req.url.searchParams.set("waitSeconds", "0");
        }
        return req;
      },
    }),
  },
  {
    name: "ignores waitSeconds (answers an empty long-poll at once)",
    breaks: "CAP-POLL-2",
    only: ["long-poll.holds-when-empty"],
    make: () => ({
      request(req) {
        if (isPoll(req)) req.url.searchParams.delete("waitSeconds");
        return req;
      },
    }),
  },
  {
    name: "renews a lease that was lost (no fencing)",
    breaks: "CAP-LEASE-8",
    only: ["renew.fenced"],
    make: () => ({
      response(req, res) {
        if (is(req, "POST", /^\/events\/[^/]+\/renew$/) && res.status === 409)
          return reply(200, { ok: true, leaseExpiresAt: new Date(Date.now() + 1000).toISOString() });
        return res;
      },
    }),
  },
  {
    name: "sends events without createdAt",
    breaks: "CAP-EVT-3",
    only: ["events.first-delivery-shape", "schema.*"],
    make: () => ({
      response(req, res) {
        if (isPoll(req)) for (const e of eventsIn(res.json)) delete e.createdAt;
        return res;
      },
    }),
  },
];
