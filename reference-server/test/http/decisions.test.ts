/**
 * Decisions (CAP-DEC-1..5): strict body, question posted as the agent, answer through the admin surface as a
 * threaded human reply that wakes the asker with message.posted.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { adminValidator, capValidator } from "../helpers/schemas.js";
import { makeWorld, type World } from "../helpers/world.js";

let w: World;
beforeEach(async () => {
  w = await makeWorld();
});
afterEach(async () => {
  await w.app.close();
});

const body = () => ({
  podId: w.podA.id,
  decisionClass: "prioritization",
  title: "What first?",
  question: "Triage or fix the flaky test?",
  options: ["Triage the backlog", "Fix the flaky test"],
  context: "CI is red twice a day.",
});

describe("decisions", () => {
  it("stores the decision, posts the question as the agent, and answers 201 {id, messageId, createdAt}", async () => {
    const res = await w.cap(w.alpha.token, "POST", "/decisions", body());
    expect(res.statusCode).toBe(201);
    expect(capValidator("DecisionResponse")(res.json())).toBe(true);
    const msgs = (await w.adminApi("GET", `/pods/${w.podA.id}/messages`)).json().messages;
    expect(msgs[0]).toMatchObject({
      id: res.json().messageId,
      author: { kind: "agent", name: "alpha" },
      metadata: { kind: "decision", decisionId: res.json().id, options: body().options },
    });
    expect(msgs[0].content).toContain("Triage or fix the flaky test?");
    const d = await w.adminApi("GET", `/decisions/${res.json().id}`);
    expect(adminValidator("Decision")(d.json())).toBe(true);
    expect(d.json()).toMatchObject({
      decisionClass: "prioritization",
      answer: null,
      context: "CI is red twice a day.",
    });
  });

  it("rejects unknown fields and schema violations with validation_failed, writing nothing", async () => {
    const cases = [
      { ...body(), approve: true },
      { ...body(), options: ["only one"] },
      { ...body(), options: ["a", "b", "c", "d", "e"] },
      { ...body(), decisionClass: "deploy" },
      { ...body(), title: "" },
      { ...body(), options: ["a", ""] },
    ];
    for (const b of cases) {
      const res = await w.cap(w.alpha.token, "POST", "/decisions", b);
      expect([res.statusCode, res.json().code]).toEqual([400, "validation_failed"]);
    }
    expect(await w.store.listDecisions({ podId: w.podA.id })).toEqual([]);
    expect(await w.store.listMessages({ podId: w.podA.id, limit: 5 })).toEqual([]);
  });

  it("requires threadRootId to name a message in the pod", async () => {
    const res = await w.cap(w.alpha.token, "POST", "/decisions", { ...body(), threadRootId: "msg_nope" });
    expect([res.statusCode, res.json().code]).toEqual([400, "message_not_in_pod"]);
    const root = (await w.adminApi("POST", `/pods/${w.podA.id}/messages`, { content: "root" })).json().id;
    const ok = await w.cap(w.alpha.token, "POST", "/decisions", { ...body(), threadRootId: root });
    expect(ok.statusCode).toBe(201);
  });

  it("delivers a human's answer to the asking agent as a threaded message.posted, once", async () => {
    const asked = (await w.cap(w.alpha.token, "POST", "/decisions", body())).json();
    await w.cap(w.beta.token, "GET", "/events");
    const answer = await w.adminApi("POST", `/decisions/${asked.id}/answer`, {
      option: "Fix the flaky test",
    });
    expect(answer.statusCode).toBe(201);
    const events = (await w.cap(w.alpha.token, "GET", "/events")).json().events;
    expect(events.map((e: { type: string }) => e.type)).toEqual(["message.posted"]);
    expect(events[0].payload).toMatchObject({
      content: "Fix the flaky test",
      replyToMessageId: asked.messageId,
      author: { kind: "human", id: w.admin.id },
      metadata: { kind: "decision-answer", decisionId: asked.id },
    });
    const twice = await w.adminApi("POST", `/decisions/${asked.id}/answer`, { option: "Triage the backlog" });
    expect([twice.statusCode, twice.json().code]).toEqual([409, "decision_already_answered"]);
    const wrong = await w.adminApi("POST", `/decisions/${asked.id}/answer`, { option: "Something else" });
    expect(wrong.statusCode).toBe(400);
  });

  it("wakes the asker with the answer even when its installation opted out of message.posted", async () => {
    const quiet = await w.addAgent("quiet", w.podA.id, "default", false);
    const asked = (await w.cap(quiet.token, "POST", "/decisions", body())).json();
    await w.adminApi("POST", `/decisions/${asked.id}/answer`, { option: "Triage the backlog" });
    expect(
      (await w.cap(quiet.token, "GET", "/events")).json().events.map((e: { type: string }) => e.type),
    ).toEqual(["message.posted"]);
  });

  it("rejects an answer that is not one of the options with invalid_decision_option", async () => {
    const asked = (await w.cap(w.alpha.token, "POST", "/decisions", body())).json();
    const res = await w.adminApi("POST", `/decisions/${asked.id}/answer`, { option: "neither" });
    expect([res.statusCode, res.json().code, res.json().details.options]).toEqual([
      400,
      "invalid_decision_option",
      body().options,
    ]);
  });
});
