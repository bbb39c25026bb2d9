// Broken: handles and replies, but never acks (CAP-DRV-8).
import { runDriver } from "./driver.mjs";

await runDriver({ ack: false });
