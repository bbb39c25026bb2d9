/** Every driver check, in the order `cap-conformance driver` runs them. */
import type { DriverCheck } from "../check.js";
import { authChecks } from "./auth.js";
import { backoffChecks } from "./backoff.js";
import { burstChecks } from "./burst.js";
import { cancelChecks } from "./cancel.js";
import { crashChecks } from "./crash.js";
import { handlingChecks } from "./handling.js";
import { leaseLostChecks } from "./lease-lost.js";
import { pollingChecks } from "./polling.js";
import { postRetryChecks } from "./post-retry.js";
import { redeliveryChecks } from "./redelivery.js";
import { requestChecks } from "./requests.js";
import { traceChecks } from "./trace.js";
import { unknownChecks } from "./unknown.js";

export const driverChecks: readonly DriverCheck[] = [
  ...handlingChecks,
  ...redeliveryChecks,
  ...crashChecks,
  ...postRetryChecks,
  ...leaseLostChecks,
  ...cancelChecks,
  ...unknownChecks,
  ...backoffChecks,
  ...pollingChecks,
  ...burstChecks,
  ...authChecks,
  ...traceChecks,
  ...requestChecks,
];
