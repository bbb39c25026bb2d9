// Broken: retries a failed post under a new Idempotency-Key, so the kernel cannot tell the retry from a new
// post (CAP-DRV-19).
import { runDriver } from "./driver.mjs";

await runDriver({ idempotencyKey: "per-attempt" });
