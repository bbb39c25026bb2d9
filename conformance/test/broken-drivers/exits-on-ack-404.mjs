// Broken: exits when an ack is answered 404 event_not_found instead of settling the event and going on
// (CAP-DRV-20).
import { runDriver } from "./driver.mjs";

await runDriver({ onAckGone: "exit" });
