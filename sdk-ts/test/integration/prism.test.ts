/**
 * The echo driver against Prism mocking the generated OpenAPI document (what `pnpm mock` serves):
 * stateless, so every poll answers the spec's example event. The driver must handle it once, then
 * treat every repeat as a duplicate. In `validate` mode, so Prism's example answers are also checked
 * against the JSON Schemas, and Prism checks the SDK's requests against the OpenAPI document.
 * A stateless mock cannot answer a batch ack for the ids it was sent (its example names other
 * ids), so the driver is shown an /info without `batch-ack` and acks one event at a time.
 */

import { eventually } from "@commonly/cap-kernel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CapClient } from "../../src/client.js";
import { hideFeatures, startDriver, stopAllDrivers } from "../helpers/drivers.js";
import { type RunningPrism, startPrism } from "../helpers/prism.js";

let prism: RunningPrism;
beforeAll(async () => {
  prism = await startPrism();
});
afterAll(async () => {
  stopAllDrivers();
  await prism?.close();
});

describe("the echo driver against Prism", () => {
  it("handles the example event once, posts one reply, and re-acks the repeats as duplicates", async () => {
    const client = hideFeatures(
      new CapClient({ baseUrl: prism.url, token: `cm_agent_${"a".repeat(64)}`, validate: true }),
      "batch-ack",
    );
    const replies: string[] = [];
    const d = startDriver(client, {
      pollIntervalMs: 20,
      handle: async (event, ctx) => {
        const posted = await ctx.reply(`echo: ${event.type}`);
        replies.push(posted.id);
      },
    });
    await eventually(() => d.rec.acks.length >= 3, "three acks", { timeoutMs: 20_000 });
    const summary = await d.stop();
    expect(d.rec.errors).toEqual([]);
    expect(replies).toHaveLength(1);
    expect(d.rec.acks[0]).toMatchObject({ outcome: "posted", duplicate: false });
    expect(d.rec.acks.slice(1).every((a) => a.duplicate && a.id === d.rec.acks[0]!.id)).toBe(true);
    expect(summary).toMatchObject({ handled: 1, failures: 0 });
  });

  it("answers 401 with the spec's example error when the token is missing", async () => {
    const response = await fetch(`${prism.url}/api/agents/runtime/events`);
    expect(response.status).toBe(401);
  });
});
