// Broken: posts every reply into the pod it was started for (CAP_POD_ID), not the event's pod (CAP-DRV-9).
import { runDriver } from "./driver.mjs";

await runDriver({ replyPod: () => process.env.CAP_POD_ID });
