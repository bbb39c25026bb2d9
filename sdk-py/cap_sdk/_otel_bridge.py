"""The OpenTelemetry bridge of `run_driver`, duck-typed: when `opentelemetry` (its API package) is
importable, each handler turn runs in a consumer span `invoke_agent {agent}` whose parent is the event's
`traceparent`, current in the handler's thread, ended once the event is settled; the turn's requests then
carry the span's own context (CAP-TRACE-11). Only the API is used (`trace.get_tracer`, `SpanKind`,
`use_span`, `set_span_in_context`, `Status`, and the W3C `TraceContextTextMapPropagator`), so whatever
SDK and exporter the application configured records the spans; the SDK depends on none of it.

The import is tried once per process, on the first turn; when it fails the driver forwards the event's
context verbatim and this module costs nothing more. It must never break a turn: any error of the
tracing library leaves the turn without a span, as if OpenTelemetry were absent.
"""
from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Any, Dict, Iterator, List, Mapping, Optional

from ._trace_context import TurnTrace, trace_headers
from ._version import __version__

_lock = threading.Lock()
_tried = False
_api: Optional["_Api"] = None


class _Api:
    def __init__(self, trace: Any, propagator: Any) -> None:
        self.trace = trace
        self.propagator = propagator


def load() -> Optional[_Api]:
    """The OpenTelemetry API when it is importable, else None; the import is tried once."""
    global _tried, _api
    if _tried:
        return _api
    with _lock:
        if not _tried:
            try:
                from opentelemetry import trace
                from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

                _api = _Api(trace, TraceContextTextMapPropagator())
            except Exception:  # noqa: BLE001 - absent, or an install too broken to use: no spans
                _api = None
            _tried = True
    return _api


def reset() -> None:
    """Forget the import attempt (for tests that put a stand-in `opentelemetry` on `sys.path`)."""
    global _tried, _api
    with _lock:
        _tried, _api = False, None


def _attributes(event: Mapping[str, Any], agent_name: Optional[str]) -> Dict[str, Any]:
    """The GenAI agent-span attributes where they fit, the messaging ones for the queue side."""
    attributes: Dict[str, Any] = {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.conversation.id": event["podId"],
        "messaging.system": "cap",
        "messaging.operation.type": "process",
        "messaging.message.id": event["id"],
        "cap.event.type": event["type"],
        "cap.event.attempts": event["attempts"],
    }
    if agent_name:
        attributes["gen_ai.agent.name"] = agent_name
        attributes["messaging.destination.name"] = agent_name
    return attributes


def _members(tracestate: str) -> List[str]:
    return [m.strip() for m in tracestate.split(",") if m.strip()]


class TurnSpan:
    """The consumer span of one handler turn. `received`: the event's own trace headers, if any."""

    def __init__(self, api: _Api, span: Any, received: Optional[Dict[str, str]]) -> None:
        self._api = api
        self._span = span
        self._received = received
        self._trace_id: Optional[str] = None

    def _inject(self, context: Any = None) -> Optional[Dict[str, str]]:
        """The headers of `context`'s span (the current context's when None), or None when it has none."""
        carrier: Dict[str, str] = {}
        try:
            self._api.propagator.inject(carrier, context=context)
        except Exception:  # noqa: BLE001 - no header rather than a broken turn
            return None
        state = carrier.get("tracestate")
        received = (self._received or {}).get("tracestate")
        if received and isinstance(state, str) and _members(state) == _members(received):
            # The event's as it came (CAP-TRACE-10): OpenTelemetry re-serialises it without optional spaces.
            carrier["tracestate"] = received
        return trace_headers(carrier) or None

    def own(self) -> Optional[Dict[str, str]]:
        """The span's own headers, which the runtime's requests for the event send."""
        headers = self._inject(self._api.trace.set_span_in_context(self._span))
        self._trace_id = headers["traceparent"][3:35] if headers else None
        return headers

    def current(self) -> Optional[Dict[str, str]]:
        """The headers of the span current where it is called, when it is of this turn's trace (a span the
        handler started); else None, and the turn's own are sent."""
        headers = self._inject()
        return headers if headers and self._trace_id and headers["traceparent"][3:35] == self._trace_id else None

    @contextmanager
    def activated(self) -> Iterator[None]:
        """The span is the current one while the block (the handler) runs; errors are recorded by `finish`."""
        try:
            scope = self._api.trace.use_span(self._span, end_on_exit=False, record_exception=False, set_status_on_exception=False)
            scope.__enter__()
        except Exception:  # noqa: BLE001
            scope = None
        try:
            yield
        finally:
            if scope is not None:
                try:
                    scope.__exit__(None, None, None)
                except Exception:  # noqa: BLE001
                    pass

    def finish(self, ending: Mapping[str, Any]) -> None:
        """Record how the turn ended and end the span. `ending`: `{acked: result, duplicate?}`, `{failed:
        error, failure_class}` or `{given_up: "lease_lost" | "driver_stopped"}` (the TypeScript SDK's)."""
        try:
            span, trace = self._span, self._api.trace
            if "acked" in ending:
                result = ending["acked"]
                span.set_attribute("cap.ack.outcome", result.get("outcome"))
                if ending.get("duplicate"):
                    span.set_attribute("cap.ack.duplicate", True)
                if result.get("outcome") == "cancelled":
                    span.set_attribute("cap.cancel.reason", result.get("reason") or "requested")
            elif "failed" in ending:
                error = ending["failed"]
                if isinstance(error, BaseException):
                    span.record_exception(error)
                span.set_attribute("error.type", ending["failure_class"])
                span.set_status(trace.Status(trace.StatusCode.ERROR, str(error)[:500] or type(error).__name__))
            else:
                why = ending.get("given_up") or "driver_stopped"
                span.set_attribute("error.type", why)
                span.set_status(trace.Status(trace.StatusCode.ERROR, why))
            span.end()
        except Exception:  # noqa: BLE001
            pass


def start_turn_span(event: Mapping[str, Any], trace: TurnTrace, agent_name: Optional[str]) -> Optional[TurnSpan]:
    """Starts the consumer span of `event`'s turn and points `trace` at it, or returns None (and leaves
    `trace` on the event's own context) when OpenTelemetry is absent or fails."""
    api = load()
    if api is None:
        return None
    try:
        otel = api.trace
        parent = api.propagator.extract(dict(trace.fixed or {}))
        name = f"invoke_agent {agent_name}" if agent_name else "invoke_agent"
        tracer = otel.get_tracer("cap_sdk", __version__)
        span = tracer.start_span(name, context=parent, kind=otel.SpanKind.CONSUMER, attributes=_attributes(event, agent_name))
        turn = TurnSpan(api, span, trace.fixed)
        own = turn.own()
    except Exception:  # noqa: BLE001
        return None
    if own:
        trace.fixed = own  # a no-op tracer's span has no context of its own: the event's then
        trace.inject_current = turn.current
    return turn
