/**
 * runDriver and CAP feature `trace-context` against the real reference kernel over real sockets, seen on
 * the wire by a proxy in front of it. A human's message posted with `traceparent` and `tracestate`
 * reaches the driver's event, and every request the driver makes for that event — the renew of a
 * fetched event waiting its turn, the cancellation watch of a running one, the release of a failed one,
 * a single ack, `ctx.reply` and `ctx.client`'s memory calls — carries the event's context exactly as the
 * event has it (CAP-TRACE-9, CAP-TRACE-10); polls and batch acks carry none. Here `@opentelemetry/api`
 * is installed but no SDK is registered; the last test runs the built SDK in a child process where the
 * package cannot be imported at all. Leases are 2 s, so a waiting event is renewed after 1 s.
 */
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { promisify } from "node:util";
import { eventually, startKernel, type TestKernel } from "@commonly/cap-kernel/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Event, TraceContext } from "../../src/types.js";
import { clientFor, hideFeatures, startDriver, stopAllDrivers } from "../helpers/drivers.js";
import { postTraced, recordWire, type Wire } from "../helpers/trace-wire.js";

let kernel: TestKernel;
let wire: Wire;
beforeAll(async () => {
  kernel = await startKernel({ leaseSeconds: 2, agents: ["single", "batch", "bare"], listeners: [] });
  wire = await recordWire(kernel);
});
afterEach(stopAllDrivers);
afterAll(async () => {
  await wire?.proxy.close();
  await kernel?.stop();
});

const first: TraceContext = {
  traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
  tracestate: "congo=t61rcWkgMzE, rojo=00f067aa0ba902b7",
};
const second: TraceContext = { traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00" };

/** What a request carried, as a trace context. */
const carried = (r: { traceparent?: string; tracestate?: string }) =>
  r.traceparent === undefined
    ? undefined
    : { traceparent: r.traceparent, ...(r.tracestate ? { tracestate: r.tracestate } : {}) };

describe.each([
  ["single", "acks one by one", true],
  ["batch", "acks in batches", false],
])("a driver that %s (%s)", (agent, _how, singleAcks) => {
  it("sends each event's context on every request for it, and none on polls and batch acks", async () => {
    const token = kernel.agents[agent]!.token;
    const client = clientFor(kernel, agent, { baseUrl: wire.proxy.url });
    if (singleAcks) hideFeatures(client, "batch-ack");
    // Both events come in one poll: the second waits (renewed) while the first runs (watched).
    await postTraced(kernel, `@${agent} first`, first);
    await postTraced(kernel, `@${agent} second`, second);
    const events = new Map<string, Event>();
    const byContent = (word: string) =>
      [...events.values()].find((e) => String(e.payload.content).endsWith(word))!;
    const d = startDriver(client, {
      onEvent: (e) => void events.set(e.id, e),
      handle: async (event, ctx) => {
        if (String(event.payload.content).endsWith("first")) {
          await ctx.client.getMemory();
          // The other event of the poll, waiting its turn, is renewed meanwhile.
          const renewed = (r: { path: string }) => r.path.endsWith("/renew") && !r.path.includes(event.id);
          await eventually(
            () =>
              wire.sent(token, "GET", `/events/${event.id}/cancellation`).length > 0 &&
              wire.requests.some((r) => r.token === token && renewed(r)),
            "this turn is watched and the waiting event renewed",
            { timeoutMs: 10_000 },
          );
          await ctx.reply("one");
        } else {
          if (event.attempts === 1) throw new Error("fails once, to be released");
          await ctx.reply("two");
        }
      },
    });
    await eventually(
      () => d.rec.acks.filter((a) => a.outcome === "posted").length === 2,
      "both events are acked",
    );
    await d.stop();

    const a = byContent("first");
    const b = byContent("second");
    // Tracing off in the kernel: the events carry the contexts the human sent, verbatim.
    expect(a.traceContext).toEqual(first);
    expect(b.traceContext).toEqual(second);
    const forEvent = (e: Event) =>
      wire.requests.filter((r) => r.token === token && r.path.includes(`/events/${e.id}/`));
    const opsOf = (e: Event) => [...new Set(forEvent(e).map((r) => r.path.split("/").at(-1)))].sort();
    expect(opsOf(a)).toEqual(singleAcks ? ["ack", "cancellation"] : ["cancellation"]);
    expect(opsOf(b)).toEqual(singleAcks ? ["ack", "release", "renew"] : ["release", "renew"]);
    for (const e of [a, b]) for (const r of forEvent(e)) expect(carried(r)).toEqual(e.traceContext);
    expect(wire.sent(token, "GET", "/memory").map(carried)).toEqual([first]);
    expect(wire.sent(token, "POST", `/pods/${kernel.podId}/messages`).map(carried)).toEqual([first, second]);
    const untraced = [...wire.sent(token, "GET", "/events"), ...wire.sent(token, "POST", "/events/ack")];
    expect(untraced.length).toBeGreaterThan(singleAcks ? 0 : 1);
    for (const r of untraced) expect(carried(r)).toBeUndefined();
  });
});

describe("without @opentelemetry/api", () => {
  let dir: string;
  beforeAll(() => {
    // The built package as an install would place it, beside openapi-fetch and nothing else.
    const sdk = resolve(import.meta.dirname, "..", "..");
    dir = mkdtempSync(join(tmpdir(), "cap-sdk-no-otel-"));
    const pkg = join(dir, "node_modules", "@commonly", "cap-sdk");
    mkdirSync(pkg, { recursive: true });
    cpSync(join(sdk, "package.json"), join(pkg, "package.json"));
    cpSync(join(sdk, "dist"), join(pkg, "dist"), { recursive: true });
    const fetchPkg = dirname(createRequire(join(sdk, "package.json")).resolve("openapi-fetch/package.json"));
    symlinkSync(realpathSync(fetchPkg), join(dir, "node_modules", "openapi-fetch"), "dir");
    writeFileSync(
      join(dir, "driver.mjs"),
      `import { CapClient, runDriver } from "@commonly/cap-sdk";
let otel = "absent";
try { await import("@opentelemetry/api"); otel = "importable"; } catch {}
const client = new CapClient({ baseUrl: process.env.CAP_URL, token: process.env.CAP_TOKEN });
const stop = new AbortController();
const seen = [];
setTimeout(() => stop.abort(), 20_000).unref();
await runDriver({
  client, signal: stop.signal, pollIntervalMs: 100, waitSeconds: 1,
  handle: async (event, ctx) => {
    seen.push({ event: event.traceContext, ctx: ctx.traceContext, sameClient: ctx.client === client });
    await ctx.client.getMemory();
    await ctx.reply("bare");
  },
  onAck: () => stop.abort(),
});
process.stdout.write(JSON.stringify({ otel, seen }));
`,
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("forwards the event's context verbatim from the built package in a process that cannot import it", async () => {
    const token = kernel.agents.bare!.token;
    await postTraced(kernel, "@bare hello", first);
    const { stdout } = await promisify(execFile)(process.execPath, ["driver.mjs"], {
      cwd: dir,
      env: { PATH: process.env.PATH, CAP_URL: wire.proxy.url, CAP_TOKEN: token },
      timeout: 30_000,
    });
    const out = JSON.parse(stdout);
    expect(out).toEqual({ otel: "absent", seen: [{ event: first, ctx: first, sameClient: false }] });
    expect(wire.sent(token, "GET", "/memory").map(carried)).toEqual([first]);
    expect(wire.sent(token, "POST", `/pods/${kernel.podId}/messages`).map(carried)).toEqual([first]);
    for (const r of wire.sent(token, "POST", "/events/ack")) expect(carried(r)).toBeUndefined();
  });
});
