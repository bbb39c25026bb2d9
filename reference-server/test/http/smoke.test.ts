import { afterEach, describe, expect, it } from "vitest";
import { makeWorld, type World } from "../helpers/world.js";

let w: World;
afterEach(async () => {
  await w?.app.close();
});

describe("smoke", () => {
  it("delivers a human's mention to the agent and takes its ack", async () => {
    w = await makeWorld();
    const post = await w.adminApi("POST", `/pods/${w.podA.id}/messages`, { content: "hi @alpha" });
    expect(post.statusCode).toBe(201);
    const poll = await w.cap(w.alpha.token, "GET", "/events");
    expect(poll.statusCode).toBe(200);
    const { events } = poll.json();
    expect(events.map((e: { type: string }) => e.type)).toEqual(["mention.received"]);
    const ack = await w.cap(w.alpha.token, "POST", `/events/${events[0].id}/ack`);
    expect(ack.json()).toEqual({ ok: true });
    const betaPoll = await w.cap(w.beta.token, "GET", "/events");
    expect(betaPoll.json().events.map((e: { type: string }) => e.type)).toEqual(["message.posted"]);
  });
});
