/**
 * The optional CAP conveniences that are not events, messages or memory: GET /info and POST /decisions.
 */

import { FEATURES } from "@commonly/cap-spec/constants";
import type { FastifyInstance } from "fastify";
import { agentOf } from "../callers.js";
import { checks } from "../request-checks.js";
import type { CapRoute } from "../route-types.js";
import { traceReader } from "../trace-headers.js";
import type { RouteDeps } from "../types.js";

/** What `/info` advertises: every optional feature of CAP v1 (spec enum Feature) but `info`, the route itself. */
const ADVERTISED_FEATURES = FEATURES.filter((f) => f !== "info");

/** The double-texting policies an installation may take (feature `cancel`), as /info lists them. */
const DOUBLE_TEXTING = ["enqueue", "interrupt"];

export async function capExtraRoutes(app: FastifyInstance, { kernel, validators, profile }: RouteDeps) {
  const c = kernel.config;
  // Polls never wait with maxWaitSeconds 0, so the kernel does not claim long-poll then (CAP-INFO-2); a
  // profile may leave features out (production: cancel).
  const features = ADVERTISED_FEATURES.filter(
    (f) => !(f === "long-poll" && c.maxWaitSeconds <= 0) && !profile.unadvertised.includes(f),
  );
  const cancel = features.includes("cancel");
  const info = {
    protocol: "cap",
    version: "1",
    leaseSeconds: Math.max(1, Math.ceil(c.leaseSeconds)),
    maxAttempts: c.maxAttempts,
    maxLimit: c.maxLimit,
    maxWaitSeconds: c.maxWaitSeconds,
    maxMessageBytes: c.maxMessageBytes,
    features,
    ...(cancel ? { doubleTexting: DOUBLE_TEXTING } : {}),
    limits: {
      maxJsonDepth: c.limits.maxJsonDepth,
      maxMemoryBytes: c.limits.maxMemoryBytes,
      maxMemorySectionBytes: c.limits.maxMemorySectionBytes,
      messagesPerMinute: c.limits.messagesPerMinute,
      messageBytesPerMinute: c.limits.messageBytesPerMinute,
      maxLongPollsPerToken: c.limits.maxLongPollsPerToken,
      maxConnectionsPerClient: c.limits.maxConnectionsPerClient,
      ...(cancel ? { maxCancelWatchesPerToken: c.limits.maxCancelWatchesPerToken } : {}),
    },
    // Only a non-default profile names itself: under `cap` the answer is CAP v1's, unchanged.
    ...(profile.name !== "cap" ? { profile: profile.name } : {}),
  };
  app.get("/info", async () => info);

  const traceOf = traceReader(profile);

  app.post<CapRoute<"/decisions", "post">>(
    "/decisions",
    { preValidation: checks({ body: validators.capModel("DecisionRequest") }) },
    async (req, reply) =>
      reply.code(201).send(await kernel.decisions.ask(agentOf(req), req.body, traceOf(req))),
  );
}
