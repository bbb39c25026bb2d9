/** Broken kernels for the queue verbs added after the first release: release, batch ack, poll replay. */
import { type BrokenKernel, type Ev, eventsIn, is, isPoll } from "./env.js";
import { type ProxyRequest, reply } from "./proxy.js";

const isRelease = (req: ProxyRequest) => is(req, "POST", /^\/events\/[^/]+\/release$/);
const isRenew = (req: ProxyRequest) => is(req, "POST", /^\/events\/[^/]+\/renew$/);
const isBatchAck = (req: ProxyRequest) => is(req, "POST", /^\/events\/ack$/);
const body = (req: ProxyRequest) => (req.json ?? {}) as Record<string, unknown>;
const pending = () => reply(200, { ok: true, status: "pending", availableAt: new Date().toISOString() });
const OUTCOMES = ["acknowledged", "posted", "no_action", "skipped", "error", "cancelled"];
const validItem = (a: unknown) => {
  const item = a as { id?: unknown; result?: { outcome?: unknown } } | null;
  return (
    typeof item?.id === "string" &&
    item.id.length > 0 &&
    (item.result === undefined || OUTCOMES.includes(item.result.outcome as string))
  );
};

export const queueVerbKernels: BrokenKernel[] = [
  {
    name: "answers a release without ending the delivery",
    breaks: "CAP-REL-2",
    only: ["release.returns-at-next-poll"],
    make: () => ({ request: (req) => (isRelease(req) ? pending() : req) }),
  },
  {
    name: "ignores delaySeconds on a release",
    breaks: "CAP-REL-3",
    only: ["release.delayed"],
    make: () => ({
      request(req) {
        if (isRelease(req)) delete body(req).delaySeconds;
        return req;
      },
    }),
  },
  {
    name: "releases a delivery that no longer holds the lease (no fencing)",
    breaks: "CAP-REL-5",
    only: ["release.fenced"],
    make: () => ({
      response: (req, res) => (isRelease(req) && res.status === 409 ? pending() : res),
    }),
  },
  {
    name: "renews a released delivery",
    breaks: "CAP-REL-6",
    only: ["release.fenced"],
    make: () => ({
      response: (req, res) =>
        isRenew(req) && res.status === 409
          ? reply(200, { ok: true, leaseExpiresAt: new Date(Date.now() + 1000).toISOString() })
          : res,
    }),
  },
  {
    name: "answers a release of another agent's event with 409 instead of 404",
    breaks: "CAP-REL-7",
    only: ["release.fenced"],
    make: () => ({
      response: (req, res) =>
        isRelease(req) && res.status === 404
          ? reply(409, { code: "lease_lost", message: "The lease on this event is no longer held." })
          : res,
    }),
  },
  {
    name: "clamps delaySeconds above 900 instead of answering 400",
    breaks: "CAP-REL-8",
    only: ["release.validation"],
    make: () => ({
      request(req) {
        const b = body(req);
        if (isRelease(req) && typeof b.delaySeconds === "number" && b.delaySeconds > 900)
          b.delaySeconds = 900;
        return req;
      },
    }),
  },
  {
    name: "answers a released last attempt as pending",
    breaks: "CAP-REL-4",
    only: ["release.last-attempt-fails"],
    make: () => ({
      response: (req, res) =>
        isRelease(req) && (res.json as { status?: unknown } | undefined)?.status === "failed"
          ? pending()
          : res,
    }),
  },
  {
    name: "answers batch ack results in reverse order",
    breaks: "CAP-BATCH-1",
    only: ["batch-ack.settles-each-item"],
    make: () => ({
      response(req, res) {
        const results = (res.json as { results?: unknown } | undefined)?.results;
        if (isBatchAck(req) && Array.isArray(results)) results.reverse();
        return res;
      },
    }),
  },
  {
    name: "answers ok: true for batch ack items it did not settle",
    breaks: "CAP-BATCH-2",
    only: ["batch-ack.settles-each-item"],
    make: () => ({
      response(req, res) {
        const results = (res.json as { results?: { ok: boolean; code?: string }[] } | undefined)?.results;
        if (isBatchAck(req) && Array.isArray(results))
          for (const r of results) {
            r.ok = true;
            delete r.code;
          }
        return res;
      },
    }),
  },
  {
    name: "settles the well-formed items of a malformed batch ack before answering 400",
    breaks: "CAP-BATCH-3",
    only: ["batch-ack.malformed-settles-nothing"],
    make: () => ({
      async request(req) {
        const acks = body(req).acks;
        if (!isBatchAck(req) || !Array.isArray(acks)) return req;
        const valid = acks.filter(validItem);
        if (valid.length === 0 || valid.length === acks.length) return req;
        await fetch(req.url, { method: "POST", headers: req.headers, body: JSON.stringify({ acks: valid }) });
        return reply(400, { code: "validation_failed", message: "The request does not match the schema." });
      },
    }),
  },
  {
    name: "ignores pollId",
    breaks: "CAP-REPLAY-2",
    only: ["poll-replay.same-deliveries"],
    make: () => ({
      request(req) {
        if (isPoll(req)) req.url.searchParams.delete("pollId");
        return req;
      },
    }),
  },
  {
    name: "keeps answering a pollId with its first answer after the deliveries were acked",
    breaks: "CAP-REPLAY-3",
    only: ["poll-replay.fresh-when-gone"],
    make: () => {
      const first = new Map<string, Ev[]>();
      return {
        response(req, res) {
          const pollId = req.url.searchParams.get("pollId");
          if (!isPoll(req) || res.status !== 200 || !pollId) return res;
          const key = `${req.token}\n${pollId}`;
          const seen = first.get(key);
          if (seen) return reply(200, { events: seen });
          first.set(key, [...eventsIn(res.json)]);
          return res;
        },
      };
    },
  },
  {
    name: "replays a pollId across agents",
    breaks: "CAP-REPLAY-4",
    only: ["poll-replay.per-agent"],
    make: () => {
      const byPollId = new Map<string, { token: string; events: Ev[] }>();
      return {
        response(req, res) {
          const pollId = req.url.searchParams.get("pollId");
          if (!isPoll(req) || res.status !== 200 || !pollId) return res;
          const seen = byPollId.get(pollId);
          if (seen && seen.token !== req.token) return reply(200, { events: seen.events });
          if (!seen) byPollId.set(pollId, { token: req.token ?? "", events: [...eventsIn(res.json)] });
          return res;
        },
      };
    },
  },
  {
    name: "accepts a malformed pollId",
    breaks: "CAP-REPLAY-1",
    only: ["poll-replay.pollid-pattern"],
    make: () => ({
      request(req) {
        const pollId = req.url.searchParams.get("pollId");
        if (isPoll(req) && pollId !== null && !/^[A-Za-z0-9_-]{1,64}$/.test(pollId))
          req.url.searchParams.delete("pollId");
        return req;
      },
    }),
  },
  {
    name: "sends poll answers without Cache-Control: no-store",
    breaks: "CAP-REPLAY-6",
    only: ["poll-replay.no-store"],
    make: () => ({
      response(req, res) {
        if (isPoll(req)) delete res.headers["cache-control"];
        return res;
      },
    }),
  },
];
