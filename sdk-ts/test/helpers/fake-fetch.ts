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
