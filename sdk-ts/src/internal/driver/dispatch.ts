/**
 * Which handler an event goes to: the one function, or the map's handler for its type (the CAP name
 * when the production kernel sent an older one), else `onUnknown`. Never a handler the map only
 * inherits (`toString`, `constructor`).
 */
import type { DriverOptions, EventHandler } from "../../driver-types.js";

/** The production kernel's names for documented types: a map without a handler for one uses the CAP one. */
const PRODUCTION_ALIASES: Record<string, string> = {
  "chat.mention": "mention.received",
  "thread.mention": "mention.received",
  heartbeat: "heartbeat.tick",
};

export function handlerFor(
  handle: DriverOptions["handle"],
  onUnknown: EventHandler | undefined,
  type: string,
): EventHandler | undefined {
  if (typeof handle === "function") return handle;
  if (Object.hasOwn(handle, type) && typeof handle[type] === "function") return handle[type];
  const alias = PRODUCTION_ALIASES[type];
  if (alias && typeof handle[alias] === "function") return handle[alias];
  return onUnknown;
}
