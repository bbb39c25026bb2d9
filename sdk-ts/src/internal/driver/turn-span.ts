/**
 * What the driver needs of the span of one event's turn, whatever records it (see otel-spans.ts): its
 * context for requests, running the handler inside it, ending it with the turn's outcome. Types only.
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
