/**
 * What a driver sends, as seen on the wire: a proxy in front of a test kernel records every request's
 * method, path and trace headers (with the token that sent it), and a human posts with a trace context.
 */
import { type InterposedProxy, interposeProxy, type TestKernel } from "@commonly/cap-kernel/testing";
import type { TraceContext } from "../../src/types.js";

export interface WireRequest {
  method: string;
  path: string;
  token: string;
  traceparent?: string;
  tracestate?: string;
}

export interface Wire {
  proxy: InterposedProxy;
  requests: WireRequest[];
  /** The requests sent with `token`, `method` and a path that ends in `suffix`. */
  sent(token: string, method: string, suffix: string): WireRequest[];
}

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v.join(",") : v);

export async function recordWire(kernel: TestKernel): Promise<Wire> {
  const requests: WireRequest[] = [];
  const proxy = await interposeProxy(kernel.url, ({ method, path, headers }) => {
    const traceparent = one(headers.traceparent);
    const tracestate = one(headers.tracestate);
    requests.push({
      method,
      path: path.split("?")[0]!,
      token: (one(headers.authorization) ?? "").replace(/^Bearer /, ""),
      ...(traceparent === undefined ? {} : { traceparent }),
      ...(tracestate === undefined ? {} : { tracestate }),
    });
  });
  return {
    proxy,
    requests,
    sent: (token, method, suffix) =>
      requests.filter((r) => r.token === token && r.method === method && r.path.endsWith(suffix)),
  };
}

/** Posts `content` into the pod as its human, sending `context` as `traceparent`/`tracestate`. */
export async function postTraced(
  kernel: TestKernel,
  content: string,
  context: TraceContext,
): Promise<string> {
  const { data, response } = await kernel.api.POST("/api/pods/{podId}/messages", {
    params: { path: { podId: kernel.podId } },
    body: { content },
    headers: { ...context },
  });
  if (!data) throw new Error(`posting as the human answered ${response.status}`);
  return data.id;
}

/** The trace-id of a `traceparent`. */
export const traceIdOf = (traceparent: string | undefined) => traceparent?.split("-")[1];
