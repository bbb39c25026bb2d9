"""W3C trace context (feature `trace-context`) on the requests a driver makes on behalf of an event, with
the standard library only: the event's `traceContext` read into the two headers (`traceparent`, and
`tracestate` verbatim beside it), and the turn whose requests carry them. A turn is current in its
handler's thread (a `contextvars` variable, as OpenTelemetry's own context is), so every `CapClient` call
made there sends the turn's headers without being told; the runtime's own requests (renew, cancellation
watch, release, ack) are made from other threads and pass them explicitly.

It must never send a header a kernel could not parse or that could split a request: a malformed
`traceContext` (a wrong kernel) is dropped, never repaired. Spans are `_otel_bridge.py`'s business.
"""
from __future__ import annotations

import contextvars
import re
from contextlib import contextmanager
from typing import Any, Callable, Dict, Iterator, Mapping, Optional

#: version-traceid-parentid-flags, lowercase hex; a version above 00 may carry a `-`-separated tail.
_TRACEPARENT = re.compile(r"([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-[\x21-\x7e]*)?")
#: Printable ASCII (space included) and nothing else: no CR/LF that could end the header.
_PRINTABLE = re.compile(r"[\x20-\x7e]*")
#: What a kernel reads of a traceparent (longer is a future version's tail it drops anyway).
MAX_TRACEPARENT = 256
#: What CAP-TRACE-4 lets a kernel keep of a tracestate.
MAX_TRACESTATE = 512


def valid_traceparent(value: Any) -> bool:
    """Whether `value` is a W3C `traceparent` a kernel accepts: version 00 exactly 55 characters, a later
    version (not ff) at least that with an optional `-` tail, trace-id and parent-id not all zeros."""
    if not isinstance(value, str) or len(value) > MAX_TRACEPARENT:
        return False
    m = _TRACEPARENT.fullmatch(value)
    if m is None:
        return False
    version, trace_id, parent_id, _flags, tail = m.groups()
    if version == "ff" or (version == "00" and tail is not None):
        return False
    return trace_id != "0" * 32 and parent_id != "0" * 16


def trace_headers(trace_context: Any) -> Dict[str, str]:
    """The headers that carry `trace_context` (`{traceparent, tracestate?}`, an event's `traceContext`):
    `traceparent` as given when valid, and then `tracestate` unchanged when it is printable ASCII of at most
    512 characters. Empty when there is no valid `traceparent`: nothing is sent rather than something wrong."""
    if not isinstance(trace_context, Mapping):
        return {}
    traceparent = trace_context.get("traceparent")
    if not valid_traceparent(traceparent):
        return {}
    headers = {"traceparent": traceparent}
    tracestate = trace_context.get("tracestate")
    if (
        isinstance(tracestate, str)
        and tracestate.strip()
        and len(tracestate) <= MAX_TRACESTATE
        and _PRINTABLE.fullmatch(tracestate)
    ):
        headers["tracestate"] = tracestate
    return headers


def event_trace_context(event: Mapping[str, Any]) -> Optional[Dict[str, str]]:
    """The event's `traceContext` as the headers to forward, or None when it has none (or a malformed one)."""
    return trace_headers(event.get("traceContext")) or None


class TurnTrace:
    """What the requests made on behalf of one event send. `fixed` is for requests the runtime makes from
    its own threads: the event's context, or the driver span's once one started. `current()` is for the
    handler's own calls: with OpenTelemetry, the context current where it is called (a child span the
    handler started), else `fixed`."""

    def __init__(self, event: Mapping[str, Any]) -> None:
        self.fixed: Optional[Dict[str, str]] = event_trace_context(event)
        #: Set by the OpenTelemetry bridge: the headers of the span current in the calling thread, or None.
        self.inject_current: Optional[Callable[[], Optional[Dict[str, str]]]] = None

    def current(self) -> Optional[Dict[str, str]]:
        if self.inject_current is not None:
            injected = self.inject_current()
            if injected:
                return injected
        return self.fixed


_turn: "contextvars.ContextVar[Optional[TurnTrace]]" = contextvars.ContextVar("cap_sdk_turn_trace", default=None)


@contextmanager
def current_turn(trace: TurnTrace) -> Iterator[None]:
    """Makes `trace` the turn of this thread's context (the handler's) while the block runs."""
    token = _turn.set(trace)
    try:
        yield
    finally:
        _turn.reset(token)


def trace_call(headers: Optional[Dict[str, str]]) -> Dict[str, Any]:
    """The client-call keyword for `headers`; none at all without them, so a client written before the
    feature (a stand-in, a subclass) is called exactly as before."""
    return {"trace_context": headers} if headers else {}


def current_headers() -> Optional[Dict[str, str]]:
    """The trace headers of the turn current in this context, or None outside a handler."""
    trace = _turn.get()
    return None if trace is None else trace.current()
