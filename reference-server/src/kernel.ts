/**
 * The kernel without HTTP, and its composition root: every service wired to one store, config and clock.
 * The HTTP app and the CLI (provision, emit, tokens, dead-letters) both build on this, so the CLI acting on
 * the database directly follows exactly the rules the routes follow.
 * Must never hand out the store: callers get services (which hold the access rules), a read-only health
 * view and close(). Only this file, the services and the store itself import `store/` (a test holds that).
 */
import { type Clock, systemClock } from "./clock.js";
import { type KernelConfigInput, resolveConfig } from "./config.js";
import { CancelWatchHub } from "./services/cancel-watch-hub.js";
import { createCancellationsService } from "./services/cancellations.js";
import { createDecisionsService } from "./services/decisions.js";
import type { ServiceDeps } from "./services/deps.js";
import { createEventsService, type EventsService } from "./services/events.js";
import { type EventsObserver, noopObserver } from "./services/events-observer.js";
import { startIdempotencyPrune } from "./services/idempotency-prune.js";
import { createJoinsService } from "./services/joins.js";
import { createMemoryService } from "./services/memory.js";
import { createMessagesService } from "./services/messages.js";
import { createOperatorService } from "./services/operator.js";
import { createPodsService } from "./services/pods.js";
import { createRegistryService } from "./services/registry.js";
import { createTokensService } from "./services/tokens.js";
import { createTraceViewService } from "./services/trace-view.js";
import { createUsersService } from "./services/users.js";
import { WakeHub } from "./services/wake-hub.js";
import type { Store } from "./store/contract.js";
import { openStore } from "./store/open.js";

/** The record shapes the services speak, for code outside the kernel that names them. */
export type { DeliveredEvent, EventRecord, PodRole, Store, StoreOps } from "./store/contract.js";
/** What a service throws when the store cannot be reached (the HTTP layer answers 503). */
export { StoreUnavailableError } from "./store/contract.js";

export interface KernelOptions {
  store: Store;
  config?: KernelConfigInput;
  clock?: Clock;
  observer?: EventsObserver;
  /**
   * False: no accelerators — the kernel's token cache off (and, through openKernel, the plain store) — so
   * the reference path can be read and stepped through. Default true.
   */
  accelerate?: boolean;
  /** Spans around the store and the polls, when OpenTelemetry is on (src/tracing); absent, nothing is wrapped. */
  instrument?: KernelInstrumentation;
}

/**
 * Wrappers the tracing module installs around the plain parts when tracing is on. An interface here, not
 * an import of src/tracing: the composition root stays below it, and the off path loads no tracing code.
 */
export interface KernelInstrumentation {
  store(store: Store): Store;
  events(events: EventsService): EventsService;
}

export function createKernel(options: KernelOptions) {
  const { instrument } = options;
  const store = instrument ? instrument.store(options.store) : options.store;
  const deps: ServiceDeps = {
    store,
    config: resolveConfig(options.config),
    clock: options.clock ?? systemClock,
  };
  const hub = new WakeHub(deps.store, {
    clock: deps.clock,
    maxAttempts: deps.config.maxAttempts,
    backstopMs: deps.config.longPollBackstopMs,
    slackMs: deps.config.longPollSlackMs,
  });
  // One process-wide hub for the cancellation watches, woken by the store's change feed.
  const cancelHub = new CancelWatchHub(deps.store, { backstopMs: deps.config.longPollBackstopMs });
  const observer = options.observer ?? noopObserver;
  const tokens = createTokensService(deps, { cache: options.accelerate ?? true });
  const messages = createMessagesService(deps, observer);
  const registry = createRegistryService(deps, tokens);
  const idempotencyPrune = startIdempotencyPrune(deps);
  return {
    config: deps.config,
    clock: deps.clock,
    hub,
    cancelHub,
    tokens,
    messages,
    registry,
    events: instrumented(instrument, createEventsService(deps, hub, observer)),
    cancellations: createCancellationsService(deps, cancelHub, observer),
    memory: createMemoryService(deps),
    decisions: createDecisionsService(deps, messages),
    users: createUsersService(deps, tokens),
    pods: createPodsService(deps),
    joins: createJoinsService(deps, registry, tokens),
    operator: createOperatorService(deps, registry),
    traces: createTraceViewService(deps),
    /** Read-only: which store, whether it answers (readiness), its row counts per state (metrics). */
    health: {
      storeKind: store.kind,
      ping: () => store.ping(),
      queueStats: () => store.queueStats(),
    },
    /** Writes what is still buffered and closes the store (after the HTTP app, if any, has closed). */
    close: async () => {
      cancelHub.close();
      await idempotencyPrune.stop();
      await tokens.touches.close();
      await store.close();
    },
  };
}

const instrumented = (instrument: KernelInstrumentation | undefined, events: EventsService) =>
  instrument ? instrument.events(events) : events;

export type Kernel = ReturnType<typeof createKernel>;

/** Opens the store a `--db` URL names (`sqlite:…`, `postgres://…`) and builds the kernel on it. */
export async function openKernel(options: Omit<KernelOptions, "store"> & { db: string }): Promise<Kernel> {
  const { db, ...rest } = options;
  return createKernel({ ...rest, store: await openStore(db, { accelerate: rest.accelerate ?? true }) });
}
