/**
 * Every CapClient method against the real reference kernel over real sockets, in `validate` mode, so
 * the kernel's answers are also checked field by field against the generated JSON Schemas.
 */

import { eventually, startKernel, type TestKernel } from "@commonly/cap-kernel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CapClient } from "../../src/client.js";
import { CapHttpError } from "../../src/errors.js";

let kernel: TestKernel;
let echo: CapClient;
let peer: CapClient;

beforeAll(async () => {
  kernel = await startKernel({ leaseSeconds: 1, agents: ["echo", "peer"] });
  echo = new CapClient({ baseUrl: kernel.url, token: kernel.agents.echo!.token, validate: true });
  peer = new CapClient({ baseUrl: kernel.url, token: kernel.agents.peer!.token, validate: true });
});
afterAll(() => kernel?.stop());

async function httpError(promise: Promise<unknown>): Promise<CapHttpError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CapHttpError);
  return error as CapHttpError;
}

describe("CapClient against cap-kernel", () => {
  it("reads /info with the configured lease and every optional feature", async () => {
    const info = await echo.info();
    expect(info).toMatchObject({ protocol: "cap", version: "1", leaseSeconds: 1 });
    expect(info.features).toEqual(
      expect.arrayContaining(["long-poll", "renew", "idempotency-key", "message-read"]),
    );
  });

  it("claims an event, acks it, and acks it again idempotently", async () => {
    const id = await kernel.emit("echo", "task.assigned", { taskId: "t1", title: "Triage" });
    const { events } = await echo.poll({ limit: 5 });
    expect(events).toEqual([expect.objectContaining({ id, type: "task.assigned", attempts: 1 })]);
    expect(Date.parse(events[0]!.leaseExpiresAt!)).toBeGreaterThan(Date.now() - 1000);
    expect(await echo.ack(id, { outcome: "no_action", reason: "test" })).toEqual({ ok: true });
    expect(await echo.ack(id)).toEqual({ ok: true });
    expect((await kernel.state("echo", id))?.state).toBe("acked");
  });

  it("answers 404 event_not_found for an unknown event and for another agent's", async () => {
    expect((await httpError(echo.ack("evt_nope"))).code).toBe("event_not_found");
    const id = await kernel.emit("peer", "heartbeat.tick", { tickAt: new Date().toISOString() });
    expect((await httpError(echo.ack(id))).status).toBe(404);
    await peer.poll();
    await peer.ack(id);
  });

  it("holds a long-poll until an event arrives, then answers at once", async () => {
    const started = Date.now();
    const polling = echo.poll({ waitSeconds: 10 });
    await eventually(() => Date.now() - started > 200, "the poll is in flight");
    const id = await kernel.emit("echo", "heartbeat.tick", { tickAt: new Date().toISOString() });
    const { events } = await polling;
    expect(events.map((e) => e.id)).toEqual([id]);
    expect(Date.now() - started).toBeLessThan(5000);
    await echo.ack(id);
  });

  it("fences renew by attempts: 409 lease_lost for a delivery whose lease was lost", async () => {
    const id = await kernel.emit("echo", "task.assigned", { taskId: "t2", title: "Renew" });
    const first = (await echo.poll()).events[0]!;
    const renewed = await echo.renew(id, first.attempts);
    expect(Date.parse(renewed.leaseExpiresAt)).toBeGreaterThanOrEqual(Date.parse(first.leaseExpiresAt!));
    const second = await eventually(
      async () => (await echo.poll({ waitSeconds: 1 })).events.find((e) => e.id === id),
      "the event is redelivered after its lease",
    );
    expect(second.attempts).toBe(2);
    const lost = await httpError(echo.renew(id, 1));
    expect({ status: lost.status, code: lost.code }).toEqual({ status: 409, code: "lease_lost" });
    expect((await echo.renew(id, 2)).ok).toBe(true);
    await echo.ack(id);
    expect((await httpError(echo.renew(id, 2))).code).toBe("lease_lost");
  });

  it("posts with an Idempotency-Key once, replays the answer, and refuses the key for another body", async () => {
    const first = await echo.postMessage(kernel.podId, { content: "hello once" }, { idempotencyKey: "k-1" });
    const again = await echo.postMessage(kernel.podId, { content: "hello once" }, { idempotencyKey: "k-1" });
    expect(first.replayed).toBe(false);
    expect(again).toEqual({ ...first, replayed: true });
    const reused = await httpError(
      echo.postMessage(kernel.podId, { content: "other" }, { idempotencyKey: "k-1" }),
    );
    expect({ status: reused.status, code: reused.code }).toEqual({
      status: 422,
      code: "idempotency_key_reused",
    });
    expect((await kernel.messages()).filter((m) => m.content === "hello once")).toHaveLength(1);
  });

  it("reads messages newest first with self and isBot flags", async () => {
    await kernel.say("from a human");
    await echo.postMessage(kernel.podId, { content: "from echo" });
    const { messages } = await echo.listMessages(kernel.podId, { limit: 2 });
    expect(messages.map((m) => [m.content, m.self, m.isBot])).toEqual([
      ["from echo", true, true],
      ["from a human", false, false],
    ]);
    const older = await echo.listMessages(kernel.podId, { limit: 1, before: messages[1]!.id });
    expect(older.messages[0]!.id).not.toBe(messages[1]!.id);
  });

  it("answers 403 not_installed for a pod the agent is not in", async () => {
    const error = await httpError(echo.postMessage("pod_elsewhere", { content: "x" }));
    expect({ status: error.status, code: error.code }).toEqual({ status: 403, code: "not_installed" });
  });

  it("writes, reads and syncs memory, deduping an identical sync", async () => {
    expect((await echo.getMemory()).schemaVersion).toBe(2);
    await echo.putMemory({ sections: { long_term: { content: "Lily is allergic to kiwi." } } });
    const memory = await echo.getMemory();
    expect(memory.content).toBe("Lily is allergic to kiwi.");
    expect(memory.sections.long_term?.byteSize).toBe(25);
    const sync = {
      sections: { soul: { content: "curious" } },
      mode: "patch" as const,
      sourceRuntime: "sdk-test",
    };
    expect((await echo.syncMemory(sync)).deduped).toBeFalsy();
    expect((await echo.syncMemory(sync)).deduped).toBe(true);
  });

  it("asks a decision (201)", async () => {
    const decision = await echo.createDecision({
      podId: kernel.podId,
      decisionClass: "prioritization",
      title: "What first?",
      question: "Backlog or flaky test?",
      options: ["Backlog", "Flaky test"],
    });
    expect(decision.messageId).toMatch(/\S/);
  });

  // given a token, want the 401 code.
  const tokens: Array<[string, string, string]> = [
    ["an unknown token", `cm_agent_${"0".repeat(64)}`, "token_unknown"],
    ["a malformed token", "not-a-token", "token_malformed"],
  ];
  for (const [name, token, code] of tokens) {
    it(`answers 401 ${code} for ${name}`, async () => {
      const client = new CapClient({ baseUrl: kernel.url, token, validate: true });
      const error = await httpError(client.poll());
      expect({ status: error.status, code: error.code }).toEqual({ status: 401, code });
    });
  }
});
