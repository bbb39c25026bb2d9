/**
 * Broken kernels of poll replay once a poll's deliveries changed hands: one that replays settled
 * deliveries as held, one that hands a replay the stale deliveries of events a later poll claimed again.
 */
import { type BrokenKernel, type Ev, eventsIn, is, isPoll } from "./env.js";
import type { ProxyRequest, Reply } from "./proxy.js";

const pollKey = (req: ProxyRequest) => {
  const pollId = req.url.searchParams.get("pollId");
  return pollId ? `${req.token}\n${pollId}` : undefined;
};
const withEvents = (res: Reply, events: Ev[]): Reply => ({
  ...res,
  json: { ...(res.json as object), events },
});
/** The answer repeats deliveries of `made` unchanged (ids and attempts): the kernel replayed. */
const replays = (events: Ev[], made: Ev[] | undefined) =>
  made !== undefined &&
  events.length > 0 &&
  events.every((e) => made.some((d) => d.id === e.id && d.attempts === e.attempts));

export const replayKernels: BrokenKernel[] = [
  {
    name: "replays a poll's acked and released deliveries as held while another of them is",
    breaks: "CAP-REPLAY-8",
    only: ["poll-replay.after-partial-settlement"],
    make: () => {
      const made = new Map<string, Ev[]>();
      return {
        response(req, res) {
          const key = pollKey(req);
          if (!isPoll(req) || res.status !== 200 || !key) return res;
          const events = eventsIn(res.json);
          const first = made.get(key);
          if (first && replays(events, first)) return withEvents(res, first);
          if (events.length > 0) made.set(key, [...events]);
          return res;
        },
      };
    },
  },
  {
    name: "hands a replayed poll its deliveries of events a later poll claimed again (a stale lease)",
    breaks: "CAP-REPLAY-8",
    only: ["poll-replay.after-lease-loss"],
    make: () => {
      const made = new Map<string, Ev[]>();
      const latest = new Map<string, number>();
      const settled = new Set<string>();
      return {
        request(req) {
          if (is(req, "POST", /^\/events\/[^/]+\/(ack|release)$/))
            settled.add(decodeURIComponent(req.url.pathname.split("/").at(-2) ?? ""));
          const acks = (req.json as { acks?: { id?: unknown }[] } | undefined)?.acks;
          if (is(req, "POST", /^\/events\/ack$/) && Array.isArray(acks))
            for (const a of acks) if (typeof a?.id === "string") settled.add(a.id);
          return req;
        },
        response(req, res) {
          if (!isPoll(req) || res.status !== 200) return res;
          const events = eventsIn(res.json);
          for (const e of events) latest.set(e.id, Math.max(latest.get(e.id) ?? 0, e.attempts));
          const key = pollKey(req);
          if (!key) return res;
          const before = made.get(key) ?? [];
          if (events.length > 0 && !replays(events, before)) made.set(key, [...events]);
          // The fault: the poll's delivery still counts as held after a later poll claimed its event again.
          const stale = before.filter(
            (d) =>
              !events.some((e) => e.id === d.id) &&
              !settled.has(d.id) &&
              (latest.get(d.id) ?? 0) > d.attempts,
          );
          return stale.length > 0 ? withEvents(res, [...stale, ...events]) : res;
        },
      };
    },
  },
];
