/**
 * The driver's OpenTelemetry spans, where `@opentelemetry/api` can be imported (an optional peer): one
 * consumer span per event (see otel-spans.ts), open while its turn runs, so the runtime's requests for
 * the event carry the span's context. The package is imported once per process, on a driver's first
 * start, and the span code only then; without the package there are no spans, and the requests of an
 * event carry the event's own context. It must never throw into the driver, and never import the
 * package statically (a bundler would then demand it of every application).
 */
import type { AckResult, Event, TraceContext } from "../../types.js";

/** How a turn ended, for its span. */
export type SpanEnding =
  | { acked: AckResult; duplicate: boolean }
  | { failed: unknown; failureClass: string }
  | { givenUp: "lost" | "stopped" };

/** The span of one event's turn. */
export interface TurnSpan {
  /** The span's own context: what the runtime's requests for the event send. */
  readonly context: TraceContext | undefined;
  /** The context a handler's request sends now: its active span when that is of this trace, else the turn's. */
  current(): TraceContext | undefined;
  /** Runs `fn` with the span as the active context. */
  run<T>(fn: () => T): T;
  end(ending: SpanEnding): void;
}

export interface Spans {
  start(event: Event, agentName: string | undefined): TurnSpan | undefined;
}

/** The spans of the turns that run, by event id: what the runtime's requests for each event carry. */
export class TurnSpans {
  #spans: Spans | undefined;
  readonly #open = new Map<string, TurnSpan>();

  /** Loads OpenTelemetry (once per process; nothing when it is not installed). */
  async load(importer?: () => Promise<unknown>): Promise<void> {
    this.#spans = await loadSpans(importer);
  }

  /** Starts the span of `event`'s turn, when there are spans. */
  start(event: Event, agentName: string | undefined): TurnSpan | undefined {
    const span = this.#spans?.start(event, agentName);
    if (span) this.#open.set(event.id, span);
    return span;
  }

  /** The trace context of a request for `event`: its open span's, else the event's own. */
  traceOf(event: Event): TraceContext | undefined {
    return this.#open.get(event.id)?.context ?? event.traceContext;
  }

  /** Ends the span of `event`'s turn with `ending`, when one is open. */
  end(event: Event, ending: SpanEnding): void {
    const span = this.#open.get(event.id);
    if (!span) return;
    this.#open.delete(event.id);
    span.end(ending);
  }
}

/** In a variable, so bundlers leave the optional peer alone. */
const PACKAGE = "@opentelemetry/api";
const importApi = (): Promise<unknown> => import(/* @vite-ignore */ /* webpackIgnore: true */ PACKAGE);

let loaded: Promise<Spans | undefined> | undefined;

/**
 * The spans of this process: `undefined` when the package cannot be imported. The default import is
 * tried once per process; tests pass their own `importer`.
 */
export function loadSpans(importer?: () => Promise<unknown>): Promise<Spans | undefined> {
  if (importer) return load(importer);
  loaded ??= load(importApi);
  return loaded;
}

async function load(importer: () => Promise<unknown>): Promise<Spans | undefined> {
  try {
    const api = await Promise.resolve().then(importer);
    return (await import("./otel-spans.js")).otelSpans(api);
  } catch {
    return undefined;
  }
}
