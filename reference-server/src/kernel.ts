/**
 * The kernel without HTTP: every service wired to one store, config and clock. The HTTP app and the CLI
 * (provision, emit, tokens, dead-letters) both build on this, so the CLI acting on the database directly
 * follows exactly the rules the routes follow.
 */
import { type Clock, systemClock } from "./clock.js";
import { type KernelConfig, resolveConfig } from "./config.js";
import { createDecisionsService } from "./services/decisions.js";
import type { ServiceDeps } from "./services/deps.js";
import { createEventsService } from "./services/events.js";
import type { EventsObserver } from "./services/events-observer.js";
import { createJoinsService } from "./services/joins.js";
import { createMemoryService } from "./services/memory.js";
import { createMessagesService } from "./services/messages.js";
import { createOperatorService } from "./services/operator.js";
import { createPodsService } from "./services/pods.js";
import { createRegistryService } from "./services/registry.js";
import { createTokensService } from "./services/tokens.js";
import { createUsersService } from "./services/users.js";
import { WakeHub } from "./services/wake-hub.js";
import type { Store } from "./store/contract.js";

export interface KernelOptions {
  store: Store;
  config?: Partial<KernelConfig>;
  clock?: Clock;
  observer?: EventsObserver;
}

export function createKernel(options: KernelOptions) {
  const deps: ServiceDeps = {
    store: options.store,
    config: resolveConfig(options.config),
    clock: options.clock ?? systemClock,
  };
  const hub = new WakeHub(deps.store, {
    clock: deps.clock,
    maxAttempts: deps.config.maxAttempts,
    backstopMs: deps.config.longPollBackstopMs,
  });
  const tokens = createTokensService(deps);
  const messages = createMessagesService(deps);
  const registry = createRegistryService(deps, tokens);
  return {
    ...deps,
    hub,
    tokens,
    messages,
    registry,
    events: createEventsService(deps, hub, options.observer),
    memory: createMemoryService(deps),
    decisions: createDecisionsService(deps, messages),
    users: createUsersService(deps, tokens),
    pods: createPodsService(deps),
    joins: createJoinsService(deps, registry, tokens),
    operator: createOperatorService(deps, registry),
  };
}

export type Kernel = ReturnType<typeof createKernel>;
