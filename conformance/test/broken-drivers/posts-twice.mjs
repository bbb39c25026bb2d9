// Broken: no dedup by event id and no Idempotency-Key, so a redelivered event is answered again (CAP-DRV-1).
import { runDriver } from "./driver.mjs";

await runDriver({ dedup: false, idempotencyKey: false });
