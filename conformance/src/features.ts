/**
 * The optional capabilities a kernel advertises in `/info` `features` (`info` is `/info` itself). A tiny
 * module at the bottom of the layer order, so settings, the manifest and the runners can name features
 * without importing what a check is.
 */
export const features = [
  "info",
  "long-poll",
  "renew",
  "decisions",
  "message-read",
  "idempotency-key",
  "release",
  "batch-ack",
  "poll-replay",
] as const;
export type Feature = (typeof features)[number];
