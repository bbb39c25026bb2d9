/** Broken kernels for auth, isolation, info, errors and pull-only. */
import { type BrokenKernel, eventsIn, is, isPoll, R } from "./env.js";
import { type ProxyRequest, reply } from "./proxy.js";

const urlsIn = (text: string | undefined) =>
  [...(text ?? "").matchAll(/https?:\/\/[^\s"'<>\\]+/g)].map((m) => m[0]);

export const accessKernels: BrokenKernel[] = [
  {
    name: "accepts requests without a token (as agent a)",
    breaks: "CAP-AUTH-1",
    only: ["auth.missing-token"],
    make: (env) => ({
      request(req) {
        if (!req.headers.authorization) req.headers.authorization = `Bearer ${env.tokens.a}`;
        return req;
      },
    }),
  },
  {
    name: "answers every 401 with auth_required (no token_unknown / token_malformed)",
    breaks: "CAP-AUTH-2",
    only: ["auth.unknown-token"],
    make: () => ({
      response(_req, res) {
        if (res.status === 401)
          return reply(401, { code: "auth_required", message: "Authorization required." });
        return res;
      },
    }),
  },
  {
    name: "leaks another agent's events into polls",
    breaks: "CAP-EVT-1",
    only: ["isolation.events-only-to-their-agent"],
    make: () => {
      const seen = new Map<string, { token: string; event: unknown }>();
      return {
        response(req, res) {
          if (!isPoll(req) || res.status !== 200) return res;
          const events = eventsIn(res.json);
          for (const e of events) seen.set(e.id, { token: req.token ?? "", event: structuredClone(e) });
          for (const [id, s] of seen)
            if (s.token !== req.token && !events.some((e) => e.id === id)) events.push(s.event as never);
          return res;
        },
      };
    },
  },
  {
    name: "answers 200 to an ack of another agent's event",
    breaks: "CAP-ACK-5",
    only: ["isolation.foreign-event-not-found"],
    make: () => ({
      response(req, res) {
        if (is(req, "POST", /^\/events\/[^/]+\/ack$/) && res.status === 404) return reply(200, { ok: true });
        return res;
      },
    }),
  },
  {
    name: "lets an agent post into a pod it is not installed in",
    breaks: "CAP-AUTH-5",
    only: ["isolation.pod-without-installation"],
    make: () => ({
      response(req, res) {
        if (is(req, "POST", /^\/pods\/[^/]+\/messages$/) && res.status === 403)
          return reply(201, { id: "msg_leaked", createdAt: new Date().toISOString() });
        return res;
      },
    }),
  },
  {
    name: "serves every agent agent a's memory",
    breaks: "CAP-MEM-2",
    only: ["isolation.memory-per-identity"],
    make: (env) => ({
      request(req) {
        if (is(req, "GET", /^\/memory$/)) req.headers.authorization = `Bearer ${env.tokens.a}`;
        return req;
      },
    }),
  },
  {
    name: "leaves maxMessageBytes out of /info",
    breaks: "CAP-INFO-1",
    only: ["info.discovery"],
    make: () => ({
      response(req, res) {
        if (is(req, "GET", /^\/info$/)) delete (res.json as Record<string, unknown>).maxMessageBytes;
        return res;
      },
    }),
  },
  {
    name: "lets a body deeper than its advertised limits.maxJsonDepth through as if it were accepted",
    breaks: "CAP-ERR-10",
    only: ["errors.json-depth-limit"],
    make: () => ({
      response(_req, res) {
        const code = (res.json as { code?: unknown } | undefined)?.code;
        return code === "json_too_deep" ? reply(200, { ok: true, schemaVersion: 2 }) : res;
      },
    }),
  },
  {
    name: "answers a long-poll beyond limits.maxLongPollsPerToken with an empty 200 instead of 429",
    breaks: "CAP-ERR-11",
    only: ["long-poll.per-token-limit"],
    make: () => ({
      response(_req, res) {
        const code = (res.json as { code?: unknown } | undefined)?.code;
        return code === "too_many_long_polls" ? reply(200, { events: [] }) : res;
      },
    }),
  },
  {
    name: "advertises a smaller limits.maxMemorySectionBytes than it applies",
    breaks: "CAP-ERR-10",
    only: ["memory.section-size-limit"],
    make: () => ({
      response(req, res) {
        const limits = (res.json as { limits?: { maxMemorySectionBytes?: number } } | undefined)?.limits;
        if (is(req, "GET", /^\/info$/) && limits) limits.maxMemorySectionBytes = 1000;
        return res;
      },
    }),
  },
  {
    name: "hides decisions from /info features while serving the route",
    breaks: "CAP-INFO-3",
    only: ["info.features-honest"],
    make: () => ({
      response(req, res) {
        const info = res.json as { features?: string[] };
        if (is(req, "GET", /^\/info$/) && Array.isArray(info?.features))
          info.features = info.features.filter((f) => f !== "decisions");
        return res;
      },
    }),
  },
  {
    name: "drops the error shape (answers {error} instead of {code, message})",
    breaks: "CAP-ERR-1",
    only: ["errors.*"],
    make: () => ({
      response(_req, res) {
        if (res.status >= 400)
          return { ...res, json: { error: String((res.json as { message?: unknown })?.message ?? "error") } };
        return res;
      },
    }),
  },
  {
    name: "answers unknown routes with 200",
    breaks: "CAP-ERR-6",
    only: ["errors.unknown-route"],
    make: () => ({
      response(req, res) {
        if (
          req.url.pathname.startsWith(R) &&
          res.status === 404 &&
          (res.json as { code?: string })?.code === "route_not_found"
        )
          return reply(200, {});
        return res;
      },
    }),
  },
  {
    name: "makes an outbound request to a URL found in a payload",
    breaks: "CAP-PULL-1",
    only: ["messages.post-created", "pull-only.*"],
    make: () => ({
      async request(req: ProxyRequest) {
        for (const url of urlsIn(req.body).slice(0, 3)) await fetch(url).catch(() => undefined);
        return req;
      },
    }),
  },
];
