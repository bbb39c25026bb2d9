// Broken: retries a failed post without an Idempotency-Key, so a post whose answer was lost is posted twice
// (CAP-DRV-19).
import { runDriver } from "./driver.mjs";

await runDriver({ idempotencyKey: false });
