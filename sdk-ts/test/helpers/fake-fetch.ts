import { CapClient, type CapClientOptions } from "../../src/client.js";

/**
 * A scripted `fetch` for client unit tests: each call takes the next answer from a list (a Response,
 * a function of the Request, or an Error to throw) and records the Request.
 */
export type Script = Response | Error | ((request: Request) => Response | Promise<Response>);

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(body === undefined ? null : JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

export function scriptedFetch(...answers: Script[]) {
  const requests: Request[] = [];
  const bodies: unknown[] = [];
  const fetch = async (request: Request): Promise<Response> => {
    requests.push(request);
    const text = request.body ? await request.clone().text() : "";
    bodies.push(text ? JSON.parse(text) : undefined);
    const next = answers.length > 1 ? answers.shift()! : answers[0];
    if (next === undefined) throw new Error("scriptedFetch: no answer left");
    if (next instanceof Error) throw next;
    if (typeof next === "function") return next(request);
    return next.clone();
  };
  return { fetch, requests, bodies };
}

export const TOKEN = `cm_agent_${"ab".repeat(32)}`;

export const exampleEvent = {
  id: "evt_1",
  type: "mention.received",
  podId: "pod_1",
  payload: { content: "hi" },
  attempts: 1,
  createdAt: "2026-11-29T18:00:00Z",
};

/** A CapClient on a scripted fetch, with recorded (instant) retry sleeps and a fixed jitter. */
export function scriptedClient(answers: Script[], options: Partial<CapClientOptions> = {}) {
  const f = scriptedFetch(...answers);
  const sleeps: number[] = [];
  const c = new CapClient({
    baseUrl: "http://kernel.test",
    token: TOKEN,
    fetch: f.fetch,
    sleep: async (ms) => void sleeps.push(ms),
    random: () => 0.5,
    ...options,
  });
  return { c, ...f, sleeps };
}
