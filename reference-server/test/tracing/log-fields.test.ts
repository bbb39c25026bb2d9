/**
 * Log lines and traces: with tracing off, a request's log lines carry the trace id of its valid
 * `traceparent` as `traceId`; with tracing on, the lines written while its span is active carry that
 * span's `trace_id` and `span_id`. Neither ever writes `tracestate` or `baggage`.
 */
import { Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { provision } from "../../src/cli/provision.js";
import { buildApp, type KernelApp } from "../../src/http/app.js";
import { PARENT_ID, startTracedApp, TRACE_ID, TRACEPARENT, type TracedApp } from "./traced-app.js";

const SECRET_STATE = "vendor=personal-data-in-tracestate";
const SECRET_BAGGAGE = "user=someone@example.com";

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split("\n")) if (l.trim()) lines.push(JSON.parse(l));
      cb();
    },
  });
  return { lines, stream, text: () => JSON.stringify(lines) };
}

const requestLines = (lines: Record<string, unknown>[], reqId: string) =>
  lines.filter((l) => l.reqId === reqId);

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

describe("with tracing off", () => {
  async function plainApp(
    log: ReturnType<typeof capture>,
  ): Promise<{ url: string; token: string; podId: string }> {
    const app: KernelApp = await buildApp({
      db: "sqlite::memory:",
      docsDir: false,
      logger: { level: "info", stream: log.stream },
    });
    const made = await provision(app.kernel, {
      users: [{ name: "lily", admin: true }],
      pods: [{ name: "lab", owner: "lily" }],
    });
    await app.listen({ host: "127.0.0.1", port: 0 });
    stop = async () => {
      await app.close();
      await app.kernel.close();
    };
    const { port } = app.server.address() as { port: number };
    return { url: `http://127.0.0.1:${port}`, token: made.users[0]!.token, podId: made.pods[0]!.id };
  }

  it("writes the received trace id as traceId on every line of the request, and nothing of tracestate or baggage", async () => {
    const log = capture();
    const k = await plainApp(log);
    const headers = {
      authorization: `Bearer ${k.token}`,
      traceparent: TRACEPARENT,
      tracestate: SECRET_STATE,
      baggage: SECRET_BAGGAGE,
    };
    expect((await fetch(`${k.url}/api/pods/${k.podId}`, { headers })).status).toBe(200);
    const lines = log.lines.filter((l) => l.reqId !== undefined);
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const l of lines) expect(l.traceId).toBe(TRACE_ID);
    expect(log.text()).not.toContain("personal-data");
    expect(log.text()).not.toContain("someone@example.com");
    expect(log.text()).not.toContain("trace_id");
  });

  it("writes no traceId for a request without a valid traceparent", async () => {
    const log = capture();
    const k = await plainApp(log);
    await fetch(`${k.url}/api/pods/${k.podId}`, {
      headers: { authorization: `Bearer ${k.token}`, traceparent: "00-bogus" },
    });
    await fetch(`${k.url}/api/pods/${k.podId}`, { headers: { authorization: `Bearer ${k.token}` } });
    const lines = log.lines.filter((l) => l.reqId !== undefined);
    expect(lines.length).toBeGreaterThanOrEqual(4);
    expect(lines.filter((l) => "traceId" in l)).toEqual([]);
  });
});

describe("with tracing on", () => {
  it("writes the request span's trace_id and span_id on the lines written while it is active", async () => {
    const log = capture();
    const t: TracedApp = await startTracedApp({ logStream: log.stream });
    stop = () => t.stop();
    const headers = { traceparent: TRACEPARENT, tracestate: SECRET_STATE, baggage: SECRET_BAGGAGE };
    expect((await t.call("GET", `/api/pods/${t.podId}`, t.human, { headers })).status).toBe(200);
    const span = t.named("GET /api/pods/:podId").at(-1)!;
    expect(span.parentSpanContext?.spanId).toBe(PARENT_ID);
    const completed = log.lines.find((l) => l.msg === "request completed")!;
    const lines = requestLines(log.lines, completed.reqId as string);
    expect(completed).toMatchObject({ trace_id: TRACE_ID, span_id: span.spanContext().spanId });
    expect(lines.filter((l) => "traceId" in l)).toEqual([]);
    expect(log.text()).not.toContain("personal-data");
    expect(log.text()).not.toContain("someone@example.com");
  });
});
