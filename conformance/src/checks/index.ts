/** Every check of the suite, in the order they are listed and reported. */
import type { Check } from "../check.js";
import { ackChecks } from "./ack.js";
import { authChecks } from "./auth.js";
import { batchAckChecks } from "./batch-ack.js";
import { cancelChecks } from "./cancel.js";
import { cancelHumanChecks } from "./cancel-humans.js";
import { cancelVerbChecks } from "./cancel-verbs.js";
import { cancelWatchChecks } from "./cancel-watch.js";
import { compatChecks } from "./compat.js";
import { decisionChecks } from "./decisions.js";
import { errorChecks } from "./errors.js";
import { eventChecks } from "./events.js";
import { humanPostChecks, humanReplyChecks } from "./human-messages.js";
import { idempotencyChecks } from "./idempotency.js";
import { infoChecks } from "./info.js";
import { isolationChecks } from "./isolation.js";
import { leaseChecks } from "./leases.js";
import { exhaustionChecks } from "./leases-exhaustion.js";
import { limitChecks, longPollLimitChecks } from "./limits.js";
import { longPollChecks } from "./long-poll.js";
import { memoryChecks } from "./memory.js";
import { memorySyncChecks } from "./memory-sync.js";
import { messageReadChecks } from "./message-read.js";
import { messageChecks } from "./messages.js";
import { outageChecks } from "./outage.js";
import { pollReplayChecks } from "./poll-replay.js";
import { pollReplayHeldChecks } from "./poll-replay-held.js";
import { pullOnlyChecks } from "./pull-only.js";
import { releaseChecks } from "./release.js";
import { renewChecks } from "./renew.js";
import { schemaChecks } from "./schema.js";
import { traceChecks } from "./trace.js";
import { traceHeaderChecks } from "./trace-headers.js";
import { traceStableChecks } from "./trace-stable.js";

export const allChecks: readonly Check[] = [
  ...infoChecks,
  ...authChecks,
  ...isolationChecks,
  ...eventChecks,
  ...leaseChecks,
  ...exhaustionChecks,
  ...ackChecks,
  ...longPollChecks,
  ...longPollLimitChecks,
  ...renewChecks,
  ...releaseChecks,
  ...batchAckChecks,
  ...pollReplayChecks,
  ...pollReplayHeldChecks,
  ...cancelChecks,
  ...cancelVerbChecks,
  ...cancelWatchChecks,
  ...cancelHumanChecks,
  ...traceChecks,
  ...traceHeaderChecks,
  ...traceStableChecks,
  ...messageChecks,
  ...humanPostChecks,
  ...idempotencyChecks,
  ...messageReadChecks,
  ...memoryChecks,
  ...memorySyncChecks,
  ...decisionChecks,
  ...humanReplyChecks,
  ...errorChecks,
  ...limitChecks,
  ...outageChecks,
  ...compatChecks,
  ...schemaChecks,
  ...pullOnlyChecks,
];
