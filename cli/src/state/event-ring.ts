/**
 * `sessions/<name>.events.json`: the ids of the last 500 events this agent handled, so a
 * redelivered event is re-acked instead of spawning the CLI (and posting) a second time. It is the
 * store the SDK's idempotency check plugs into: `has` is synchronous (the ring is in memory),
 * `add` persists before it resolves. Oldest ids fall out first.
 */
import { readJson, writeJsonAtomic } from "./atomic-file.js";

export const DEFAULT_EVENT_RING_CAPACITY = 500;

export interface EventRing {
  has(id: string): boolean;
  add(id: string): Promise<void>;
  /** Oldest first. */
  ids(): string[];
  readonly size: number;
}

export async function openEventRing(
  path: string,
  { capacity = DEFAULT_EVENT_RING_CAPACITY }: { capacity?: number } = {},
): Promise<EventRing> {
  if (!Number.isInteger(capacity) || capacity < 1)
    throw new RangeError(`capacity must be ≥ 1, got ${capacity}`);
  const stored = await readJson<{ ids?: unknown }>(path, {});
  const order: string[] = Array.isArray(stored.ids)
    ? stored.ids.filter((x): x is string => typeof x === "string").slice(-capacity)
    : [];
  const set = new Set(order);
  let queue: Promise<unknown> = Promise.resolve();
  return {
    has: (id) => set.has(id),
    add(id) {
      if (set.has(id)) return queue.then(() => {});
      set.add(id);
      order.push(id);
      while (order.length > capacity) set.delete(order.shift()!);
      const snapshot = [...order];
      const next = queue.then(() => writeJsonAtomic(path, { ids: snapshot }));
      queue = next.catch(() => {});
      return next;
    },
    ids: () => [...order],
    get size() {
      return order.length;
    },
  };
}
