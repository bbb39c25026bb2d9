/**
 * runDriver and CAP feature `trace-context`, on the fake kernel and virtual time, with
 * `@opentelemetry/api` installed but no SDK registered (the API's spans record nothing and carry their
 * parent's context): every request made on behalf of an event — renew (running or waiting), watch,
 * release, single ack, `ctx.reply` and `ctx.client` — carries that event's context exactly as the
 * kernel sent it (CAP-TRACE-9, CAP-TRACE-10), a batch ack carries none, and an event without one sends
 * none. And the loader: a package that cannot be imported, or is not the API, means no spans.
 */
import { eventually } from "@commonly/cap-kernel/testing";
import { describe, expect, it } from "vitest";
import { loadSpans } from "../../src/internal/driver/spans.js";
import type { TraceContext } from "../../src/types.js";
import { setup, time } from "../helpers/driver-setup.js";

const ctxA: TraceContext = {
  traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
  tracestate: "congo=t61rcWkgMzE, rojo=00f067aa0ba902b7",
};
const ctxB: TraceContext = { traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00" };

/** The operations the kernel saw for `id`, each with the context it carried. */
function tracedOf(t: ReturnType<typeof setup>, id: string) {
  return t.kernel.traced.filter((r) => r.id === id).map((r) => [r.op, r.traceContext]);
}

describe("runDriver trace context without an OpenTelemetry SDK", () => {
  it("sends the event's context verbatim on its renew, reply and ack", async () => {
    const t = setup();
    t.kernel.features = t.kernel.features.filter((f) => f !== "batch-ack");
    const id = t.kernel.enqueue("mention.received", { messageId: "m" }, { traceContext: ctxA });
    let seen: TraceContext | undefined;
    t.start({
      handle: async (_event, ctx) => {
        seen = ctx.traceContext;
        await time.sleep(20_000); // past the renewal at half of the 30 s lease
        await ctx.reply("done");
      },
    });
    await eventually(() => t.kernel.acks.length === 1, "the event is acked");
    await t.finish();
    expect(seen).toEqual(ctxA);
    expect(tracedOf(t, id)).toEqual([
      ["renew", ctxA],
      ["ack", ctxA],
    ]);
    expect(t.kernel.traced.filter((r) => r.op === "post").map((r) => r.traceContext)).toEqual([ctxA]);
  });

  it("sends it on the cancellation watch of a running handler", async () => {
    const t = setup();
    t.kernel.features.push("cancel");
    const id = t.kernel.enqueue("task.assigned", {}, { traceContext: ctxB });
    t.start({ handle: async () => void (await time.sleep(2000)) });
    await eventually(() => t.kernel.acks.length === 1, "the event is acked");
    await t.finish();
    expect(tracedOf(t, id)[0]).toEqual(["watch", ctxB]);
  });

  it("sends it on the release of a failed event, and none on the batch ack of another", async () => {
    const t = setup();
    const failing = t.kernel.enqueue("task.assigned", {}, { traceContext: ctxA });
    t.start({
      handle: (event) => {
        if (event.id === failing && event.attempts === 1) throw new Error("boom");
      },
    });
    const other = t.kernel.enqueue("task.assigned", {}, { traceContext: ctxB });
    await eventually(() => t.kernel.acks.length === 2, "both events are acked");
    await t.finish();
    expect(tracedOf(t, failing)[0]).toEqual(["release", ctxA]);
    const batches = t.kernel.traced.filter((r) => r.op === "ackMany");
    expect(batches.map((b) => b.id).join(",")).toContain(other);
    for (const b of batches) expect(b.traceContext).toBeUndefined();
  });

  it("renews a fetched event waiting its turn with its own context", async () => {
    const t = setup();
    const first = t.kernel.enqueue("task.assigned", {}, { traceContext: ctxA });
    const waiting = t.kernel.enqueue("task.assigned", {}, { traceContext: ctxB });
    t.start({
      handle: async (event) => {
        if (event.id === first) await time.sleep(20_000);
      },
    });
    await eventually(() => t.kernel.acks.length === 2, "both events are acked");
    await t.finish();
    expect(tracedOf(t, waiting)).toContainEqual(["renew", ctxB]);
    expect(tracedOf(t, first)).toContainEqual(["renew", ctxA]);
  });

  it("sends no context for an event that has none, and gives the handler the driver's own client", async () => {
    const t = setup();
    t.kernel.features = t.kernel.features.filter((f) => f !== "batch-ack");
    const id = t.kernel.enqueue("task.assigned", {});
    let sameClient = false;
    let seen: TraceContext | undefined = ctxA;
    t.start({
      handle: async (_event, ctx) => {
        sameClient = ctx.client === t.kernel.client;
        seen = ctx.traceContext;
        await time.sleep(20_000);
      },
    });
    await eventually(() => t.kernel.acks.length === 1, "the event is acked");
    await t.finish();
    expect({ sameClient, seen }).toEqual({ sameClient: true, seen: undefined });
    expect(tracedOf(t, id)).toEqual([
      ["renew", undefined],
      ["ack", undefined],
    ]);
  });
});

describe("loadSpans", () => {
  it("has no spans when the package cannot be imported, or is not the OpenTelemetry API", async () => {
    const missing = Object.assign(new Error("Cannot find package '@opentelemetry/api'"), {
      code: "ERR_MODULE_NOT_FOUND",
    });
    expect(await loadSpans(() => Promise.reject(missing))).toBeUndefined();
    expect(
      await loadSpans(() => {
        throw missing;
      }),
    ).toBeUndefined();
    expect(await loadSpans(async () => ({ trace: {} }))).toBeUndefined();
    expect(await loadSpans(async () => import("@opentelemetry/api"))).toBeDefined();
  });
});
