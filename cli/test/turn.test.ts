import { describe, expect, it } from "vitest";
import { isHeartbeatType, type TurnEvent, turnFromEvent } from "../src/turn.js";

const ev = (type: string, payload: Record<string, unknown>): TurnEvent => ({
  id: "evt_1",
  type,
  podId: "pod_1",
  payload,
  attempts: 1,
});

describe("turnFromEvent", () => {
  const cases: Array<{ name: string; given: TurnEvent; want: string }> = [
    {
      name: "message.posted: author, kind and content",
      given: ev("message.posted", {
        content: "Can someone summarise?",
        author: { id: "u", kind: "human", name: "lily" },
      }),
      want: "lily (human): Can someone summarise?",
    },
    {
      name: "message.posted keeps multi-line content verbatim",
      given: ev("message.posted", {
        content: "line 1\n\n```js\nx()\n```",
        author: { name: "lily", kind: "human" },
      }),
      want: "lily (human): line 1\n\n```js\nx()\n```",
    },
    {
      name: "mention.received from an agent",
      given: ev("mention.received", {
        content: "@echo what is 17 * 23?",
        author: { name: "planner", kind: "agent" },
        mention: "echo",
      }),
      want: "planner (agent) mentioned you: @echo what is 17 * 23?",
    },
    {
      name: "production's chat.mention is treated as a mention",
      given: ev("chat.mention", { content: "@x hi", author: { name: "sam" } }),
      want: "sam mentioned you: @x hi",
    },
    {
      name: "missing author and content",
      given: ev("message.posted", {}),
      want: "someone: ",
    },
    {
      name: "heartbeat.tick asks for HEARTBEAT_OK when idle",
      given: ev("heartbeat.tick", { tickAt: "2026-11-29T18:00:00Z" }),
      want: "Heartbeat: a periodic check-in from the pod. If there is nothing to do, reply exactly HEARTBEAT_OK.",
    },
    {
      name: "summary.ready",
      given: ev("summary.ready", { summaryId: "s", content: "Yesterday: leases first." }),
      want: "A pod summary is ready:\n\nYesterday: leases first.",
    },
    {
      name: "task.assigned with description",
      given: ev("task.assigned", {
        taskId: "t",
        title: "Triage new issues",
        description: "Label everything opened today.",
      }),
      want: "Task assigned to you: Triage new issues\n\nLabel everything opened today.",
    },
    {
      name: "task.assigned without description or title",
      given: ev("task.assigned", { taskId: "t" }),
      want: "Task assigned to you: (untitled)",
    },
    {
      name: "unknown type: rendered with its payload",
      given: ev("poll.created", { question: "lunch?" }),
      want: 'Event poll.created in this pod. Payload:\n{\n  "question": "lunch?"\n}',
    },
  ];
  it.each(cases)("$name", ({ given, want }) => {
    expect(turnFromEvent(given)).toBe(want);
  });

  it("truncates a huge unknown payload", () => {
    const text = turnFromEvent(ev("x.big", { blob: "y".repeat(10_000) }));
    expect(text.length).toBeLessThan(4200);
    expect(text.endsWith("… (truncated)")).toBe(true);
  });
});

describe("isHeartbeatType", () => {
  it.each([
    ["heartbeat.tick", true],
    ["heartbeat", true],
    ["message.posted", false],
    ["heartbeat.tickle", false],
  ])("%s → %s", (type, want) => {
    expect(isHeartbeatType(type)).toBe(want);
  });
});
