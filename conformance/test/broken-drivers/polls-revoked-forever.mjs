// Broken: treats 401 like any other failure and keeps polling a revoked token, once a second (CAP-DRV-10).
import { runDriver } from "./driver.mjs";

await runDriver({ onAuthFailure: () => new Promise((r) => setTimeout(r, 1000)) });
