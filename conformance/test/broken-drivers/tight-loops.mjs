// Broken: polls without waitSeconds and without pausing after an empty answer (CAP-DRV-14).
import { runDriver } from "./driver.mjs";

await runDriver({ waitSeconds: 0, idleSleepMs: 0 });
