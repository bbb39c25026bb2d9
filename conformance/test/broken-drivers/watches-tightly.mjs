// Broken: watches the delivery it works on with waitSeconds 1, a request a second per turn (CAP-CANCEL-16).
import { runDriver } from "./driver.mjs";

await runDriver({ watchSeconds: 1 });
