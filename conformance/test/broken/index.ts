/** Every broken kernel the suite must catch. */
import type { BrokenKernel } from "./env.js";
import { accessKernels } from "./kernels-access.js";
import { cancelKernels } from "./kernels-cancel.js";
import { contentKernels } from "./kernels-content.js";
import { eventKernels } from "./kernels-events.js";
import { outageKernels } from "./kernels-outage.js";
import { queueVerbKernels } from "./kernels-queue-verbs.js";
import { replayKernels } from "./kernels-replay.js";
import { traceKernels } from "./kernels-trace.js";

export const brokenKernels: BrokenKernel[] = [
  ...accessKernels,
  ...eventKernels,
  ...queueVerbKernels,
  ...replayKernels,
  ...contentKernels,
  ...cancelKernels,
  ...traceKernels,
  ...outageKernels,
];
