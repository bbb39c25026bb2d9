/**
 * Backlog: a poll's cost must not grow with the queue. The same drain (8 drivers, poll 50, one ack per
 * event) of `sizes.backlogMeasure` events, once from a queue of `sizes.backlogSmall` pending events and
 * once from `sizes.backlogLarge` (20,000 and 200,000 in a full run), each on a fresh database and kernel.
 * The figure is the large queue's drain rate over the small one's; no baseline is needed, both rates come
 * from the same run and client.
 */
import { drain } from "./drain.mjs";

export async function backlog(ctx, store) {
  const { sizes } = ctx;
  const small = await drain(ctx, store, { pending: sizes.backlogSmall, measure: sizes.backlogMeasure });
  const large = await drain(ctx, store, { pending: sizes.backlogLarge, measure: sizes.backlogMeasure });
  return { small, large, ratio: large.eventsPerSecond / small.eventsPerSecond };
}
