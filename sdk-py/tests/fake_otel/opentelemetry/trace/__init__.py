"""The stand-in's `opentelemetry.trace`: the API names cap_sdk's bridge calls, with the real signatures,
and one tracer that keeps every span it starts in `RECORDED` (an in-memory exporter in miniature). Setting
`FAIL` makes `start_span` raise, as a broken tracing setup would."""
from __future__ import annotations

import enum
import random
import threading
from contextlib import contextmanager
from typing import Any, Dict, Iterator, List, Optional

from opentelemetry import context as _context

_SPAN_KEY = "current-span"
#: Every span the stand-in tracer started, in order.
RECORDED: List["RecordingSpan"] = []
#: (name, version) of each `get_tracer` call.
TRACERS: List[tuple] = []
#: When true, `start_span` raises.
FAIL = False
_lock = threading.Lock()


class SpanKind(enum.Enum):
    INTERNAL = 0
    SERVER = 1
    CLIENT = 2
    PRODUCER = 3
    CONSUMER = 4


class StatusCode(enum.Enum):
    UNSET = 0
    OK = 1
    ERROR = 2


class Status:
    def __init__(self, status_code: StatusCode = StatusCode.UNSET, description: Optional[str] = None) -> None:
        self.status_code = status_code
        self.description = description


class SpanContext:
    def __init__(self, trace_id: int, span_id: int, is_remote: bool, trace_flags: int = 0, trace_state: Any = None) -> None:
        self.trace_id = trace_id
        self.span_id = span_id
        self.is_remote = is_remote
        self.trace_flags = trace_flags
        self.trace_state = trace_state

    @property
    def is_valid(self) -> bool:
        return self.trace_id != 0 and self.span_id != 0


INVALID_SPAN_CONTEXT = SpanContext(0, 0, False)


class NonRecordingSpan:
    def __init__(self, context: SpanContext) -> None:
        self._context = context

    def get_span_context(self) -> SpanContext:
        return self._context

    def is_recording(self) -> bool:
        return False


INVALID_SPAN = NonRecordingSpan(INVALID_SPAN_CONTEXT)


class RecordingSpan:
    def __init__(self, name: str, kind: SpanKind, parent: Optional[SpanContext], attributes: Dict[str, Any]) -> None:
        self.name = name
        self.kind = kind
        self.parent = parent
        self.attributes = dict(attributes)
        self.exceptions: List[BaseException] = []
        self.status = Status()
        self.end_count = 0
        trace_id = parent.trace_id if parent is not None else random.getrandbits(128) or 1
        flags = parent.trace_flags if parent is not None else 1
        state = parent.trace_state if parent is not None else None
        self._context = SpanContext(trace_id, random.getrandbits(64) or 1, False, flags, state)

    def get_span_context(self) -> SpanContext:
        return self._context

    def is_recording(self) -> bool:
        return self.end_count == 0

    def set_attribute(self, key: str, value: Any) -> None:
        self.attributes[key] = value

    def record_exception(self, exception: BaseException, attributes: Any = None, timestamp: Any = None, escaped: bool = False) -> None:
        self.exceptions.append(exception)

    def set_status(self, status: Status, description: Optional[str] = None) -> None:
        self.status = status

    def end(self, end_time: Any = None) -> None:
        self.end_count += 1


class Tracer:
    def start_span(
        self,
        name: str,
        context: Optional[_context.Context] = None,
        kind: SpanKind = SpanKind.INTERNAL,
        attributes: Optional[Dict[str, Any]] = None,
        links: Any = None,
        start_time: Any = None,
        record_exception: bool = True,
        set_status_on_exception: bool = True,
    ) -> RecordingSpan:
        if FAIL:
            raise RuntimeError("the stand-in tracer was told to fail")
        parent = get_current_span(context).get_span_context()
        span = RecordingSpan(name, kind, parent if parent.is_valid else None, attributes or {})
        with _lock:
            RECORDED.append(span)
        return span


def get_tracer(instrumenting_module_name: str, instrumenting_library_version: Optional[str] = None, *args: Any, **kwargs: Any) -> Tracer:
    TRACERS.append((instrumenting_module_name, instrumenting_library_version))
    return Tracer()


def get_current_span(context: Optional[_context.Context] = None) -> Any:
    span = _context.get_value(_SPAN_KEY, context)
    return span if span is not None else INVALID_SPAN


def set_span_in_context(span: Any, context: Optional[_context.Context] = None) -> _context.Context:
    return _context.set_value(_SPAN_KEY, span, context)


@contextmanager
def use_span(span: Any, end_on_exit: bool = False, record_exception: bool = True, set_status_on_exception: bool = True) -> Iterator[Any]:
    token = _context.attach(set_span_in_context(span))
    try:
        yield span
    finally:
        _context.detach(token)
        if end_on_exit:
            span.end()


def reset() -> None:
    """Forget every recorded span (a test's setUp)."""
    global FAIL
    with _lock:
        RECORDED.clear()
        TRACERS.clear()
        FAIL = False
