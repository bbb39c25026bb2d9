"""The in-process stand-in client (fake_client.py) that also records the `trace_context` each call was
given, for the trace-context tests of run_driver: which request carried which context, and which none."""
from __future__ import annotations

import threading
from typing import Any, Callable, Dict, List, Optional, Tuple

from cap_sdk import StopSignal, run_driver
from helpers.fake_client import FakeClient, event

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
TRACEPARENT = f"00-{TRACE_ID}-00f067aa0ba902b7-01"
TRACESTATE = "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7"


def traced(event_id: str, event_type: str = "task.assigned", traceparent: str = TRACEPARENT, tracestate: Optional[str] = TRACESTATE, **more: Any) -> Dict[str, Any]:
    """An event as a kernel with `trace-context` delivers it: with the `traceContext` of its cause."""
    e = event(event_id, event_type, **more)
    e["traceContext"] = {"traceparent": traceparent, **({"tracestate": tracestate} if tracestate else {})}
    return e


class TracingClient(FakeClient):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: (call, event id or pod id, the `trace_context` keyword or "absent" when none was passed)
        self.traces: List[Tuple[str, Any, Any]] = []

    def _trace(self, name: str, key: Any, call: Dict[str, Any]) -> None:
        with self.lock:
            self.traces.append((name, key, call.get("trace_context", "absent")))

    def traces_of(self, name: str, key: Any = None) -> List[Any]:
        with self.lock:
            return [t[2] for t in self.traces if t[0] == name and (key is None or t[1] == key)]

    def poll(self, limit=None, wait_seconds=None, poll_id=None, cancel=None, **call: Any) -> Dict[str, Any]:  # noqa: ANN001
        self._trace("poll", None, call)
        return super().poll(limit, wait_seconds, poll_id, cancel, **call)

    def ack(self, event_id: str, result=None, **call: Any) -> Dict[str, Any]:  # noqa: ANN001
        self._trace("ack", event_id, call)
        return super().ack(event_id, result, **call)

    def ack_many(self, acks, **call: Any) -> Dict[str, Any]:  # noqa: ANN001
        self._trace("ack_many", tuple(a["id"] for a in acks), call)
        return super().ack_many(acks, **call)

    def renew(self, event_id: str, attempts: int, **call: Any) -> Dict[str, Any]:
        self._trace("renew", event_id, call)
        return super().renew(event_id, attempts, **call)

    def watch_cancellation(self, event_id: str, attempts: int, wait_seconds=None, cancel=None, **call: Any) -> Dict[str, Any]:  # noqa: ANN001
        self._trace("watch", event_id, call)
        return super().watch_cancellation(event_id, attempts, wait_seconds, cancel, **call)

    def release(self, event_id: str, attempts: int, delay_seconds=None, reason=None, **call: Any) -> Dict[str, Any]:  # noqa: ANN001
        self._trace("release", event_id, call)
        return super().release(event_id, attempts, delay_seconds, reason, **call)

    def post_message(self, pod_id: str, content: str, **options: Any) -> Dict[str, Any]:
        self._trace("post", content, options)
        return super().post_message(pod_id, content, **options)


def background(client: Any, handlers: Any, **options: Any) -> Callable[[], Any]:
    """Runs a driver in a thread; returns `finish()`, which stops it and returns its summary."""
    stop = StopSignal()
    box: Dict[str, Any] = {}
    options.setdefault("poll_interval", 0.05)
    options.setdefault("wait_seconds", 1)

    def target() -> None:
        try:
            box["summary"] = run_driver(client, handlers, stop=stop, handle_signals=False, **options)
        except BaseException as err:  # noqa: BLE001 - the test reads it
            box["error"] = err

    thread = threading.Thread(target=target, daemon=True)
    thread.start()

    def finish() -> Any:
        stop.set()
        thread.join(20)
        assert not thread.is_alive(), "the driver did not stop"
        if "error" in box:
            raise box["error"]
        return box["summary"]

    return finish
