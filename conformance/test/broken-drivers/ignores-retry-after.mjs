// Broken: backs off a steady 1.1 s — within one poll a second — whatever Retry-After says (CAP-DRV-12).
import { runDriver } from "./driver.mjs";

await runDriver({ backoffMs: () => 1100 });
