// Broken: acks each event as soon as it arrives, then handles it; killed mid-handler, it loses the event
// (CAP-DRV-18).
import { runDriver } from "./driver.mjs";

await runDriver({ ackFirst: true });
