// Broken: stops a cancelled turn but acks it with outcome "skipped" instead of "cancelled" (CAP-CANCEL-18).
import { runDriver } from "./driver.mjs";

await runDriver({ cancelledOutcome: "skipped" });
