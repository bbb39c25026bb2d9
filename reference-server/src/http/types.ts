/**
 * Shared HTTP-layer types: the request decorations set by the auth hooks (null until a hook sets them;
 * handlers read them through callers.ts), and the route plugin options.
 */
import type { Kernel } from "../kernel.js";
import type { WireProfile } from "../profiles/index.js";
import type { AgentCaller, UserCaller } from "../services/deps.js";
import type { RouteRateLimits } from "./rate-limits.js";
import type { Validators } from "./validation.js";

declare module "fastify" {
  interface FastifyRequest {
    agent: AgentCaller | null;
    user: UserCaller | null;
  }
}

export interface RouteDeps {
  kernel: Kernel;
  validators: Validators;
  /** The wire dialect of this kernel process (src/profiles). */
  profile: WireProfile;
  /** Request-rate limits that routes attach to themselves (join redemption, issuance). */
  rateLimits: RouteRateLimits;
}
