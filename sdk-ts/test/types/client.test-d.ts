import { assertType, describe, expectTypeOf, it } from "vitest";
import {
  type AckResult,
  type CancelledError,
  type CancelResponse,
  CapClient,
  type CapSdkError,
  type Event,
  type EventList,
  type HandlerMap,
  type Info,
  type PodMessage,
  type PostMessageResult,
  runDriver,
} from "../../src/index.js";
import type { MentionReceivedPayload } from "../../src/types.js";

const client = new CapClient({ baseUrl: "http://127.0.0.1:7070", token: "cm_agent_x" });

describe("CapClient types", () => {
  it("returns the spec's models", () => {
    expectTypeOf(client.poll()).resolves.toEqualTypeOf<EventList>();
    expectTypeOf(client.info()).resolves.toEqualTypeOf<Info>();
    expectTypeOf(client.postMessage("p", { content: "x" })).resolves.toEqualTypeOf<PostMessageResult>();
    expectTypeOf(client.listMessages("p")).resolves.toHaveProperty("messages").toEqualTypeOf<PodMessage[]>();
    expectTypeOf<Event["attempts"]>().toBeNumber();
    expectTypeOf<PodMessage["self"]>().toBeBoolean();
  });

  it("types the cancel verbs (feature cancel): the answer, and the watch's two shapes by cancelRequested", async () => {
    expectTypeOf(client.cancelEvent("e", { reason: "wrong repo" })).resolves.toEqualTypeOf<CancelResponse>();
    expectTypeOf<CancelResponse["status"]>().toEqualTypeOf<"cancelled" | "acked" | "failed">();
    const answer = await client.watchCancellation("e", { attempts: 1, waitSeconds: 20 });
    if (answer.cancelRequested) expectTypeOf(answer.reason).toBeString();
    else expectTypeOf(answer.leaseExpiresAt).toBeString();
    // @ts-expect-error attempts is required: the watch is fenced like renew
    void client.watchCancellation("e", { waitSeconds: 20 });
    // @ts-expect-error a reason is a string
    void client.cancelEvent("e", { reason: 5 });
    assertType<AckResult>({ outcome: "cancelled", reason: "superseded" });
    expectTypeOf<CancelledError>().toExtend<CapSdkError>();
    expectTypeOf<CancelledError["reason"]>().toBeString();
  });

  it("rejects wrong bodies", () => {
    // @ts-expect-error content must be a string
    void client.postMessage("p", { content: 42 });
    // @ts-expect-error content is required
    void client.postMessage("p", { metadata: {} });
    // @ts-expect-error not an ack outcome
    void client.ack("e", { outcome: "done" });
    // @ts-expect-error attempts is a number
    void client.renew("e", "1");
    // @ts-expect-error mode is full or patch
    void client.syncMemory({ sections: {}, mode: "merge" });
    // @ts-expect-error unknown memory section
    void client.putMemory({ sections: { diary: { content: "x" } } });
    void client.createDecision({
      podId: "p",
      // @ts-expect-error a decision needs a decisionClass from the union
      decisionClass: "vibes",
      title: "t",
      question: "q",
      options: ["a", "b"],
    });
    // @ts-expect-error limit is a number
    void client.poll({ limit: "10" });
    assertType<AckResult>({ outcome: "posted", messageId: "m" });
  });

  it("rejects wrong paths and bodies on the raw openapi-fetch client", () => {
    // @ts-expect-error no such route
    void client.raw.GET("/api/agents/runtime/nope");
    // @ts-expect-error the CAP routes live under /api/agents/runtime
    void client.raw.GET("/events");
    // @ts-expect-error ack is POST, not GET
    void client.raw.GET("/api/agents/runtime/events/{id}/ack", { params: { path: { id: "e" } } });
    void client.raw.POST("/api/agents/runtime/events/{id}/renew", {
      params: { path: { id: "e" } },
      // @ts-expect-error renew needs attempts
      body: {},
    });
    void client.raw.POST("/api/agents/runtime/events/{id}/renew", {
      params: { path: { id: "e" } },
      body: { attempts: 1 },
    });
  });
});

describe("runDriver types", () => {
  it("types documented payloads in a handler map", () => {
    const handlers: HandlerMap = {
      "mention.received": (event) => {
        expectTypeOf(event.payload).toEqualTypeOf<MentionReceivedPayload>();
        expectTypeOf(event.payload.mention).toBeString();
      },
      "task.assigned": (event) => {
        expectTypeOf(event.payload.title).toBeString();
        return { outcome: "no_action" };
      },
      curate: (event) => {
        expectTypeOf(event.payload).toEqualTypeOf<Record<string, unknown>>();
      },
    };
    void runDriver({ client, handle: handlers });
  });

  it("accepts async handlers and rejects wrong ack results", () => {
    void runDriver({ client, handle: async (_event, ctx) => void (await ctx.reply("hi")) });
    // @ts-expect-error not an ack outcome
    void runDriver({ client, handle: () => ({ outcome: "finished" }) });
    expectTypeOf(runDriver).returns.resolves.toHaveProperty("handled").toBeNumber();
    expectTypeOf(runDriver).returns.resolves.toHaveProperty("cancelled").toBeNumber();
    void runDriver({ client, handle: () => {}, onCancel: ({ event, reason }) => void [event.id, reason] });
  });
});
