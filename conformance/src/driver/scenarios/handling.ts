/**
 * Plain handling: a human's message in the agent's second pod, then an @mention in its first, each
 * handled and acked with an outcome CAP defines; a reply, when the driver posts one, lands in the event's
 * pod (threaded under its message when the driver threads), after which the ack follows.
 */
import { defineDriverCheck } from "../check.js";
import type { DriverContext } from "../context.js";
import { expectValidOutcomes, judgeReplies, postsOnWire } from "./support.js";

async function phase(ctx: DriverContext, podId: string, content: string) {
  const started = Date.now();
  const messageId = await ctx.world.say(podId, content);
  const event = await ctx.world.eventFor(ctx.agent, podId, messageId);
  if (!event) return ctx.incomplete(`the kernel enqueued no event for the message in pod ${podId}`);
  const acked = await ctx.acked(event.id, ctx.handleMs);
  // Unacked, the next phase would only wait out the same deadline again.
  ctx.assert("CAP-DRV-8", acked, {
    message: `the driver did not ack ${event.type} ${event.id} within ${ctx.handleMs} ms${ctx.processNote()}`,
    expected: `POST /events/${event.id}/ack`,
    actual: "no ack the kernel accepted",
  });
  expectValidOutcomes(ctx, "CAP-DRV-8", event.id);
  judgeReplies(ctx, { eventId: event.id, podId, messageId }, postsOnWire(ctx, started), {
    pod: "CAP-DRV-9",
    ackAfterPost: "CAP-DRV-4",
    batchAckAfterPost: "CAP-BATCH-5",
    idempotencyKey: "CAP-IDEM-5",
  });
  return { event, acked };
}

export const handlingChecks = [
  defineDriverCheck({
    id: "driver.handling.message-and-mention",
    family: "handling",
    title:
      "handles a human's message and an @mention, acks each (singly or in a batch) with a CAP outcome, and replies (if at all) in the event's pod after which it acks",
    verifies: ["CAP-DRV-8", "CAP-DRV-9", "CAP-DRV-4", "CAP-IDEM-5", "CAP-BATCH-5"],
    async run(ctx) {
      await ctx.begin({ pods: 2 });
      // The second pod first: a driver that posts into CAP_POD_ID whatever the event says is caught here.
      await phase(ctx, ctx.pod(1).id, `hello from the conformance suite ${ctx.nonce()}`);
      await phase(ctx, ctx.pod(0).id, `@${ctx.agent.name} are you there? ${ctx.nonce()}`);
    },
  }),
];
