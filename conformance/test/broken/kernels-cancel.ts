/**
 * Broken kernels for cancellation (`cancel`): one per CAP-CANCEL kernel requirement, each a proxy that
 * breaks that one behaviour of the real kernel behind it (a swallowed cancel, a watch that never wakes, a
 * cancel let through for another agent, an interrupt policy ignored, …).
 */
import { type BrokenKernel, type Ev, eventsIn, is, isPoll } from "./env.js";
import { type ProxyRequest, reply } from "./proxy.js";

const isCancel = (req: ProxyRequest) => is(req, "POST", /^\/events\/[^/]+\/cancel$/);
const isWatch = (req: ProxyRequest) => is(req, "GET", /^\/events\/[^/]+\/cancellation$/);
const isHumanCancel = (req: ProxyRequest) =>
  req.method === "POST" && /^\/api\/pods\/[^/]+\/events\/[^/]+\/cancel$/.test(req.url.pathname);
const isInstallationPatch = (req: ProxyRequest) =>
  req.method === "PATCH" && /^\/api\/registry\/pods\/[^/]+\/agents\/[^/]+$/.test(req.url.pathname);
const isHumanPost = (req: ProxyRequest) =>
  req.method === "POST" && /^\/api\/pods\/[^/]+\/messages$/.test(req.url.pathname);
const eventIdOf = (req: ProxyRequest) => decodeURIComponent(req.url.pathname.split("/").at(-2) ?? "");
const body = (req: ProxyRequest) => (req.json ?? {}) as Record<string, unknown>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const cancelled = (changed: boolean) => reply(200, { ok: true, status: "cancelled", changed });
const watchNotRequested = () =>
  reply(200, { cancelRequested: false, leaseExpiresAt: new Date(Date.now() + 1000).toISOString() });

export const cancelKernels: BrokenKernel[] = [
  {
    name: "answers a cancel of another agent's or an unknown event 200 instead of 404",
    breaks: "CAP-CANCEL-1",
    only: ["cancel.own-event"],
    make: () => ({ response: (req, res) => (isCancel(req) && res.status === 404 ? cancelled(false) : res) }),
  },
  {
    name: "cancels the event before refusing a bad reason with 400",
    breaks: "CAP-CANCEL-1",
    only: ["cancel.own-event"],
    make: () => ({
      async request(req) {
        const reason = body(req).reason;
        if (!isCancel(req) || reason === undefined || (typeof reason === "string" && reason.length <= 500))
          return req;
        await fetch(req.url, { method: "POST", headers: req.headers, body: "{}" });
        return reply(400, { code: "validation_failed", message: "The request does not match the schema." });
      },
    }),
  },
  {
    name: "answers changed: false to the cancel that cancelled the event",
    breaks: "CAP-CANCEL-2",
    only: ["cancel.terminal-at-once"],
    make: () => ({
      response(req, res) {
        if (isCancel(req) && res.status === 200) (res.json as { changed: boolean }).changed = false;
        return res;
      },
    }),
  },
  {
    name: "answers changed: true to a cancel of a settled event",
    breaks: "CAP-CANCEL-3",
    only: ["cancel.idempotent"],
    make: () => ({
      response(req, res) {
        if (isCancel(req) && res.status === 200) (res.json as { changed: boolean }).changed = true;
        return res;
      },
    }),
  },
  {
    name: "answers cancels without cancelling, so the event is redelivered",
    breaks: "CAP-CANCEL-4",
    only: ["cancel.never-redelivered"],
    make: () => ({ request: (req) => (isCancel(req) ? cancelled(true) : req) }),
  },
  {
    name: "replays a cancelled delivery to a repeated pollId",
    breaks: "CAP-CANCEL-4",
    only: ["cancel.never-redelivered"],
    make: () => {
      const first = new Map<string, Ev[]>();
      return {
        response(req, res) {
          const pollId = req.url.searchParams.get("pollId");
          if (!isPoll(req) || res.status !== 200 || !pollId) return res;
          const seen = first.get(pollId);
          const events = eventsIn(res.json);
          if (!seen && events.length > 0) first.set(pollId, [...events]);
          else if (seen) for (const e of seen) if (!events.some((x) => x.id === e.id)) events.push(e);
          return res;
        },
      };
    },
  },
  {
    name: "lets an event cancelled once fail or come back when its lease ends (the first cancel is not kept)",
    breaks: "CAP-CANCEL-5",
    only: ["cancel.not-a-failure"],
    make: () => {
      const once = new Set<string>();
      return {
        request(req) {
          if (!isCancel(req) || once.has(eventIdOf(req))) return req;
          once.add(eventIdOf(req));
          return cancelled(true);
        },
      };
    },
  },
  {
    name: "answers an ack of a cancelled event 409 lease_lost",
    breaks: "CAP-CANCEL-6",
    only: ["cancel.ack-of-cancelled"],
    make: () => {
      const gone = new Set<string>();
      return {
        response(req, res) {
          if (isCancel(req) && res.status === 200) gone.add(eventIdOf(req));
          if (is(req, "POST", /^\/events\/[^/]+\/ack$/) && gone.has(eventIdOf(req)))
            return reply(409, { code: "lease_lost", message: "The lease on this event is no longer held." });
          return res;
        },
      };
    },
  },
  {
    name: "answers a renew or release of a cancelled delivery 409 without details.cancelled",
    breaks: "CAP-CANCEL-7",
    only: ["cancel.renew-release-fenced"],
    make: () => ({
      response(req, res) {
        if (is(req, "POST", /^\/events\/[^/]+\/(renew|release)$/) && res.status === 409)
          delete (res.json as { details?: unknown }).details;
        return res;
      },
    }),
  },
  {
    name: "answers the watch of a cancelled delivery with reason requested, whatever the reason was",
    breaks: "CAP-CANCEL-8",
    only: ["cancel.watch-cancelled-at-once"],
    make: () => ({
      response(req, res) {
        const json = res.json as { cancelRequested?: unknown; reason?: unknown } | undefined;
        if (isWatch(req) && json?.cancelRequested === true) json.reason = "requested";
        return res;
      },
    }),
  },
  {
    name: "never wakes a held watch: answers cancelRequested false when the wait ends",
    breaks: "CAP-CANCEL-9",
    only: ["cancel.watch-held"],
    make: () => ({
      async request(req) {
        const wait = Number(req.url.searchParams.get("waitSeconds") ?? 0);
        if (!isWatch(req) || !(wait > 0)) return req;
        await sleep(wait * 1000);
        return watchNotRequested();
      },
    }),
  },
  {
    name: "holds a quiet watch for its whole wait, past the lease, and renews nothing",
    breaks: "CAP-CANCEL-9",
    only: ["cancel.watch-held"],
    make: () => ({
      async request(req) {
        const wait = Number(req.url.searchParams.get("waitSeconds") ?? 0);
        if (!isWatch(req) || !(wait > 0)) return req;
        // The fixture's lease (1 s) ends during the wait; the late look finds the delivery lost.
        await sleep(wait * 1000);
        req.url.searchParams.set("waitSeconds", "0");
        return req;
      },
    }),
  },
  {
    name: "looks at held watches every 2.5 s instead of waking them",
    breaks: "CAP-CANCEL-10",
    only: ["cancel.watch-wakes-within-a-second"],
    strict: true,
    make: () => ({
      async request(req) {
        const wait = Number(req.url.searchParams.get("waitSeconds") ?? 0);
        if (!isWatch(req) || !(wait > 0)) return req;
        req.url.searchParams.set("waitSeconds", "0");
        for (const end = Date.now() + wait * 1000; ; ) {
          const r = await fetch(req.url, { headers: req.headers });
          const json = (await r.json()) as { cancelRequested?: unknown };
          if (r.status !== 200 || json.cancelRequested === true || Date.now() >= end)
            return reply(r.status, json);
          await sleep(2500);
        }
      },
    }),
  },
  {
    name: "answers a watch of another agent's event 409 instead of 404",
    breaks: "CAP-CANCEL-11",
    only: ["cancel.watch-refusals"],
    make: () => ({
      response: (req, res) =>
        isWatch(req) && res.status === 404
          ? reply(409, { code: "lease_lost", message: "The lease on this event is no longer held." })
          : res,
    }),
  },
  {
    name: "lets another agent of the pod cancel an agent's event",
    breaks: "CAP-CANCEL-12",
    only: ["cancel.who-may-cancel"],
    make: (env) => ({
      request(req) {
        if (isCancel(req) && req.token === env.tokens.a) req.headers.authorization = `Bearer ${env.tokens.b}`;
        return req;
      },
    }),
  },
  {
    name: "drops the reason a canceller gives",
    breaks: "CAP-CANCEL-13",
    only: ["cancel.reason-time-canceller"],
    make: () => ({
      request(req) {
        if (isCancel(req) || isHumanCancel(req)) delete body(req).reason;
        return req;
      },
    }),
  },
  {
    name: "ignores the interrupt policy (keeps enqueue, answers interrupt)",
    breaks: "CAP-CANCEL-14",
    only: ["cancel.double-texting-interrupt"],
    make: () => {
      const asked = new WeakMap<ProxyRequest, unknown>();
      return {
        request(req) {
          if (isInstallationPatch(req) && body(req).doubleTexting === "interrupt") {
            asked.set(req, "interrupt");
            body(req).doubleTexting = "enqueue";
          }
          return req;
        },
        response(req, res) {
          if (asked.has(req) && res.status === 200)
            (res.json as { doubleTexting?: unknown }).doubleTexting = asked.get(req);
          return res;
        },
      };
    },
  },
  {
    name: "cancels the deliveries an agent holds when a human posts, under the enqueue policy",
    breaks: "CAP-CANCEL-15",
    only: ["cancel.double-texting-enqueue"],
    make: (env) => {
      const heldByB = new Set<string>();
      return {
        async request(req) {
          if (is(req, "POST", /^\/events\/[^/]+\/ack$/)) heldByB.delete(eventIdOf(req));
          if (isHumanPost(req))
            for (const id of heldByB)
              await fetch(new URL(`/api/agents/runtime/events/${id}/cancel`, req.url), {
                method: "POST",
                headers: { authorization: `Bearer ${env.tokens.b}`, "content-type": "application/json" },
                body: JSON.stringify({ reason: "superseded" }),
              });
          return req;
        },
        response(req, res) {
          if (isPoll(req) && req.token === env.tokens.b)
            for (const e of eventsIn(res.json)) heldByB.add(e.id);
          return res;
        },
      };
    },
  },
];
