// Broken: a renew or watch answered 409 lease_lost does not stop its turn; it keeps retrying its post
// (CAP-DRV-21).
import { runDriver } from "./driver.mjs";

await runDriver({ stopOnLeaseLost: false });
