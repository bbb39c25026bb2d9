// Broken: told of a cancel, it aborts its reply but then posts it anyway (CAP-CANCEL-17).
import { runDriver } from "./driver.mjs";

await runDriver({ postAfterCancel: true });
