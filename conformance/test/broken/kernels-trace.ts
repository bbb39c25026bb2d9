/**
 * Broken kernels for trace context (`trace-context`): one per CAP-TRACE kernel requirement the suite
 * checks, each a proxy that breaks that one behaviour of the real kernel behind it — the context dropped or
 * its trace-id rewritten, a malformed tracestate kept, a malformed traceparent refused or echoed, the
 * context changed on redelivery, fan-out events given different trace-ids, baggage stored.
 */
import { randomBytes } from "node:crypto";
import { type BrokenKernel, type Ev, eventsIn, isPoll } from "./env.js";
import { type ProxyRequest, type Reply, reply } from "./proxy.js";

const VALID = /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;
const traceIdOf = (traceparent: string | undefined) => {
  const m = VALID.exec(traceparent ?? "");
  return m && !/^0+$/.test(m[1] as string) && !/^0+$/.test(m[2] as string) ? (m[1] as string) : undefined;
};
const hex = (n: number) => randomBytes(n).toString("hex");
const isPost = (req: ProxyRequest) =>
  req.method === "POST" && /\/pods\/[^/]+\/messages$/.test(req.url.pathname);
const malformedTraceparent = (req: ProxyRequest) =>
  req.headers.traceparent !== undefined && traceIdOf(req.headers.traceparent) === undefined;

interface Context {
  traceparent: string;
  tracestate?: string;
  [k: string]: unknown;
}
const contextOf = (e: Ev) => e.traceContext as Context | undefined;

/** Rewrite the trace context of every event of a poll answer (when the request is a poll). */
const eachContext =
  (
    fn: (tc: Context, e: { attempts: number; traceContext?: unknown }) => void,
    only?: (req: ProxyRequest) => boolean,
  ) =>
  (req: ProxyRequest, res: Reply) => {
    if (isPoll(req) && (!only || only(req)))
      for (const e of eventsIn(res.json)) {
        const tc = contextOf(e);
        if (tc) fn(tc, e);
      }
    return res;
  };

/** A kernel that remembers something of each post by its trace-id and puts it into that trace's events. */
function byTrace(
  remember: (req: ProxyRequest) => string | undefined,
  put: (tc: Context, kept: string) => void,
) {
  const kept = new Map<string, string>();
  return {
    request(req: ProxyRequest) {
      const id = traceIdOf(req.headers.traceparent);
      const value = isPost(req) && id ? remember(req) : undefined;
      if (id && value !== undefined) kept.set(id, value);
      return req;
    },
    response: eachContext((tc) => {
      const value = kept.get(traceIdOf(tc.traceparent) ?? "");
      if (value !== undefined) put(tc, value);
    }),
  };
}

export const traceKernels: BrokenKernel[] = [
  {
    name: "delivers events without the trace context of the post that caused them",
    breaks: "CAP-TRACE-2",
    only: ["trace.human-post"],
    make: () => ({
      response(req, res) {
        if (isPoll(req)) for (const e of eventsIn(res.json)) delete e.traceContext;
        return res;
      },
    }),
  },
  {
    name: "gives the event of an agent's post another trace-id",
    breaks: "CAP-TRACE-7",
    only: ["trace.agent-post"],
    make: () => ({
      response: eachContext((tc) => {
        tc.traceparent = tc.traceparent.replace(/^00-[0-9a-f]{32}/, `00-${hex(16)}`);
      }),
    }),
  },
  {
    name: "answers 400 to a post with a malformed traceparent",
    breaks: "CAP-TRACE-1",
    only: ["trace.malformed-post"],
    make: () => ({
      request: (req) =>
        isPost(req) && malformedTraceparent(req)
          ? reply(400, { code: "validation_failed", message: "Invalid traceparent." })
          : req,
    }),
  },
  {
    name: "echoes a malformed traceparent in its error answers",
    breaks: "CAP-TRACE-1",
    only: ["trace.malformed-any-request"],
    make: () => ({
      response(req, res) {
        const body = res.json as Record<string, unknown> | undefined;
        if (res.status >= 400 && malformedTraceparent(req) && body)
          body.details = { traceparent: req.headers.traceparent };
        return res;
      },
    }),
  },
  {
    name: "keeps a tracestate that is malformed or over 512 bytes as it came",
    breaks: "CAP-TRACE-4",
    only: ["trace.tracestate-bounded"],
    make: () =>
      byTrace(
        (req) => req.headers.tracestate,
        (tc, raw) => {
          tc.tracestate = raw;
        },
      ),
  },
  {
    name: "reads tracestate without a valid traceparent (making one up)",
    breaks: "CAP-TRACE-4",
    only: ["trace.tracestate-kept"],
    make: () => ({
      request(req) {
        if (isPost(req) && req.headers.tracestate && traceIdOf(req.headers.traceparent) === undefined)
          req.headers.traceparent = `00-${hex(16)}-${hex(8)}-01`;
        return req;
      },
    }),
  },
  {
    name: "gives a redelivered event another parent-id",
    breaks: "CAP-TRACE-5",
    only: ["trace.stable"],
    make: () => ({
      response: eachContext((tc, e) => {
        if (e.attempts > 1) tc.traceparent = tc.traceparent.replace(/-[0-9a-f]{16}-/, `-${hex(8)}-`);
      }),
    }),
  },
  {
    name: "gives the events one post enqueues for two agents different trace-ids",
    breaks: "CAP-TRACE-6",
    only: ["trace.fan-out"],
    make: (env) => ({
      response: eachContext(
        (tc) => {
          tc.traceparent = tc.traceparent.replace(/^00-[0-9a-f]{32}/, `00-${hex(16)}`);
        },
        (req) => req.headers.authorization === `Bearer ${env.tokens.a}`,
      ),
    }),
  },
  {
    name: "keeps the baggage of a post in its events",
    breaks: "CAP-TRACE-8",
    only: ["trace.no-baggage"],
    make: () =>
      byTrace(
        (req) => req.headers.baggage,
        (tc, baggage) => {
          tc.baggage = baggage;
        },
      ),
  },
];
