"""The stand-in's W3C Trace Context propagator: reads `traceparent`/`tracestate` from a dict carrier into a
context holding a remote span context, and writes a context's span into one, as the real one does — the
tracestate re-serialised from its members, without optional whitespace, as the real `TraceState` does."""
from __future__ import annotations

import re
from typing import Any, Optional

from opentelemetry import context as _context
from opentelemetry import trace

_TRACEPARENT = re.compile(r"([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?")


class TraceContextTextMapPropagator:
    def extract(self, carrier: Any, context: Optional[_context.Context] = None, getter: Any = None) -> _context.Context:
        base = context if context is not None else _context.Context()
        header = carrier.get("traceparent")
        m = _TRACEPARENT.fullmatch(header or "")
        if m is None:
            return base
        span_context = trace.SpanContext(
            trace_id=int(m.group(2), 16),
            span_id=int(m.group(3), 16),
            is_remote=True,
            trace_flags=int(m.group(4), 16),
            trace_state=",".join(m.strip() for m in (carrier.get("tracestate") or "").split(",") if m.strip()) or None,
        )
        if not span_context.is_valid:
            return base
        return trace.set_span_in_context(trace.NonRecordingSpan(span_context), base)

    def inject(self, carrier: Any, context: Optional[_context.Context] = None, setter: Any = None) -> None:
        span_context = trace.get_current_span(context).get_span_context()
        if not span_context.is_valid:
            return
        carrier["traceparent"] = f"00-{span_context.trace_id:032x}-{span_context.span_id:016x}-{span_context.trace_flags:02x}"
        if span_context.trace_state:
            carrier["tracestate"] = span_context.trace_state
