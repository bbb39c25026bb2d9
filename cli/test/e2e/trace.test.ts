/**
 * `commonly agent run` and W3C trace context, end to end (the real bin, the real reference kernel over
 * a socket, the fake claude on PATH): the wrapped CLI gets the turn's context as `TRACEPARENT` and
 * `TRACESTATE`, so what it records joins the trace of the human's message; a message posted without
 * one gives it none, even when `commonly` itself was started inside another trace.
 */
import { startKernel, type TestKernel } from "@commonly/cap-kernel/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Commonly } from "../helpers/commonly.js";

let kernel: TestKernel;
let c: Commonly;
beforeAll(async () => {
  kernel = await startKernel();
});
afterAll(() => kernel?.stop());
afterEach(async () => {
  await c?.dispose();
});

const traced = {
  traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
  tracestate: "congo=t61rcWkgMzE",
};

/** Posts into the pod as its human with `traceparent` and `tracestate`; returns the message id. */
async function sayTraced(content: string): Promise<string> {
  const { data } = await kernel.api.POST("/api/pods/{podId}/messages", {
    params: { path: { podId: kernel.podId } },
    body: { content },
    headers: traced,
  });
  return data!.id;
}

describe("commonly agent run and trace context", () => {
  it("hands the wrapped CLI the turn's TRACEPARENT and TRACESTATE, and never its own", async () => {
    c = new Commonly();
    await c.login(kernel);
    await c.attach(kernel, "claude", "tr1");
    // commonly started inside another trace: that context must not reach the turns.
    const run = c.start(["agent", "run", "tr1"], {
      TRACEPARENT: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
      TRACESTATE: "stale=1",
    });
    await run.waitFor(/polling for events/);
    await kernel.replyTo(await sayTraced("a traced question"), "tr1");
    await kernel.replyTo(await kernel.say("a plain question"), "tr1");
    const calls = c.calls({ cli: "claude", event: "call" });
    const said = (call: (typeof calls)[number]) =>
      call.prompt?.includes("a traced question") ? "traced" : "plain";
    expect(calls.map((call) => [said(call), call.traceparent, call.tracestate])).toEqual([
      ["traced", traced.traceparent, traced.tracestate],
      ["plain", null, null],
    ]);
    await run.stop();
  });
});
