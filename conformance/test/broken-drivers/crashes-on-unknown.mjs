// Broken: throws on an event type it does not know, and the process dies (CAP-DRV-2, CAP-DRV-3).
import { runDriver } from "./driver.mjs";

await runDriver({ skipUnknown: false });
