/** What a broken kernel knows about the fixture it is broken for. */
import type { Mutation, ProxyRequest } from "./proxy.js";

export interface BrokenEnv {
  tokens: { a: string; b: string; c: string };
  pods: { shared: string; other: string };
}

export interface BrokenKernel {
  /** What it breaks, as a sentence. */
  name: string;
  /** The requirement id the suite must name when it fails against this kernel. */
  breaks: string;
  /** `--only` patterns: the checks that exercise the broken behaviour (the rest of the suite is not needed). */
  only: string[];
  /** The behaviour is a SHOULD: the suite runs with --strict to fail on it. */
  strict?: boolean;
  make(env: BrokenEnv): Mutation;
}

export const R = "/api/agents/runtime";
export const is = (req: ProxyRequest, method: string, path: RegExp) =>
  req.method === method && path.test(req.url.pathname.slice(R.length));

export const isPoll = (req: ProxyRequest) => is(req, "GET", /^\/events$/);

export interface Ev {
  id: string;
  attempts: number;
  [k: string]: unknown;
}

/** The events array of a poll answer (empty when the answer is not a poll result). */
export const eventsIn = (json: unknown): Ev[] => {
  const events = (json as { events?: unknown } | undefined)?.events;
  return Array.isArray(events) ? (events as Ev[]) : [];
};
