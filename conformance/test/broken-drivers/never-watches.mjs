// Broken: never watches the delivery it works on for a cancel; only its renewals tell it (CAP-CANCEL-16).
import { runDriver } from "./driver.mjs";

await runDriver({ watch: false });
