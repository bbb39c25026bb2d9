// Broken: retries a failed poll at once, 20 times a second (CAP-DRV-11, and CAP-DRV-12 with it).
import { runDriver } from "./driver.mjs";

await runDriver({ backoffMs: () => 50 });
