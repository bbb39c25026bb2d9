"""One handler turn: the handler's context (its cancel signal, `ctx.reply` with a per-event idempotency
key) and a worker thread that runs the handler while the driver's thread waits for it to finish, for its
lease to be lost, or for the shutdown grace to end. The handler runs in its own thread so the driver can
give a turn up (lease lost, grace over) without killing anything: the handler sees `ctx.cancelled` set
and its replies fail with `aborted`. A cancelled delivery (feature `cancel`) is not given up at once:
the turn waits up to the shutdown grace for the handler to stop (its replies raise `Cancelled`), so the
driver acks `cancelled` after it. It never acks and never raises.
"""
from __future__ import annotations

import threading
import time
from contextlib import nullcontext
from typing import TYPE_CHECKING, Any, Callable, Dict, Optional, cast
from urllib.parse import quote

from ._fingerprint import fnv1a
from ._generated.models import TraceContext
from ._trace_context import TurnTrace, current_turn, trace_call
from .errors import Cancelled, CapHttpError, CapSdkError
from .stop import StopSignal

if TYPE_CHECKING:
    from ._otel_bridge import TurnSpan


def reply_key(event_id: str, n: int) -> str:
    """The `Idempotency-Key` of the n-th reply to an event: the same on every delivery of it, and the same
    as the TypeScript SDK's, so a redelivery handled by either SDK does not post twice."""
    encoded = quote(event_id, safe="-_.!~*'()")[:200]
    return f"cap-sdk-reply:{fnv1a(event_id):x}:{n}:{encoded}"


class HandlerContext:
    """What a handler gets besides the event.

    `client` is the driver's `CapClient`; `cancelled` a `StopSignal` (a `threading.Event`: check it with
    `is_set()`, block on it with `wait(timeout)`) set when the delivery is cancelled (feature `cancel`;
    reason: a `Cancelled`, and `cancel_reason` says why), when the lease is lost (reason: `CapSdkError`
    `lease_lost`) or when the shutdown grace ran out (`aborted`): a long handler should check it and return.
    `trace_context` is the turn's W3C trace context (feature `trace-context`), which every request made
    for the event carries.
    """

    def __init__(
        self,
        event: Dict[str, Any],
        client: Any,
        cancelled: StopSignal,
        on_posted: Callable[[str], None],
        trace: Optional[TurnTrace] = None,
    ) -> None:
        self.event = event
        self.client = client
        self.cancelled = cancelled
        self._on_posted = on_posted
        self._trace = trace if trace is not None else TurnTrace(event)
        self._replies = 0
        self._lock = threading.Lock()

    @property
    def trace_context(self) -> Optional[TraceContext]:
        """The turn's trace context as the headers to send, `{"traceparent": …, "tracestate": …}`
        (`tracestate` only when there is one), or None when the event has none (feature `trace-context`).
        With OpenTelemetry importable it is the context current where it is read — the driver's span
        `invoke_agent`, or a span the handler started inside it — else the event's `traceContext` as it
        came. `ctx.reply` and every `CapClient` call made in the handler's thread send it already; pass it
        on to what the handler calls (HTTP headers, `TRACEPARENT` in a subprocess's environment) to
        continue the trace there."""
        headers = self._trace.current()
        return cast(TraceContext, dict(headers)) if headers else None

    @property
    def cancel_reason(self) -> Optional[str]:
        """Why the delivery was cancelled (`requested`, `superseded`, or the canceller's words) once the
        driver has learned of a cancel; None until then, and when `cancelled` was set for another reason."""
        reason = self.cancelled.reason
        return reason.reason if isinstance(reason, Cancelled) else None

    def _raise_if_cancelled(self, cause: Optional[BaseException] = None) -> None:
        reason = self.cancelled.reason
        if isinstance(reason, Cancelled):
            raise Cancelled(reason.reason, reason.event_id, reason.requested_at) from cause

    def reply(
        self,
        content: str,
        reply_to_message_id: Optional[str] = "",
        metadata: Optional[Dict[str, Any]] = None,
    ) -> Dict[str, Any]:
        """Post into the event's pod, threaded under `payload.messageId` when there is one (pass
        `reply_to_message_id=None` not to thread). The `Idempotency-Key` derives from the event id and the
        reply's index, so a redelivered event re-posting the same reply does not post twice. Raises
        `Cancelled` once the delivery is cancelled (a reply in flight then is cut off), so nothing is
        posted for a cancelled turn."""
        self._raise_if_cancelled()
        payload = self.event.get("payload") or {}
        if reply_to_message_id == "":
            reply_to_message_id = payload.get("messageId") if isinstance(payload.get("messageId"), str) else None
        with self._lock:
            n = self._replies
            self._replies += 1
        try:
            posted = self.client.post_message(
                self.event["podId"],
                content,
                reply_to_message_id=reply_to_message_id,
                metadata=metadata,
                idempotency_key=reply_key(self.event["id"], n),
                cancel=self.cancelled,
                **trace_call(self._trace.current()),  # explicit: a reply from a thread the handler started too
            )
        except CapSdkError as err:
            self._raise_if_cancelled(err)
            raise
        except CapHttpError as err:
            # A redelivered handler that words its reply differently: the reply was posted before.
            if err.code == "idempotency_key_reused":
                message_id = (err.details or {}).get("messageId")
                message_id = message_id if isinstance(message_id, str) else ""
                self._on_posted(message_id)
                return {"id": message_id, "createdAt": "", "replayed": True}
            raise
        self._on_posted(posted["id"])
        return posted


class TurnOutcome:
    def __init__(self, kind: str, value: Any = None, error: Optional[BaseException] = None) -> None:
        self.kind = kind  # "done" | "failed" | "released" | "cancelled"
        self.value = value
        self.error = error


def run_turn(
    event: Dict[str, Any],
    handler: Callable[..., Any],
    context: HandlerContext,
    stop: StopSignal,
    shutdown_timeout: float,
    span: Optional["TurnSpan"] = None,
) -> TurnOutcome:
    """Runs one handler turn, the turn's trace context (and `span`, when OpenTelemetry records one) current
    in the handler's thread. "cancelled" when the delivery was cancelled, once the handler stopped or
    `shutdown_timeout` passed since the cancel (or the stop); "released" when it was given up otherwise;
    else "done" or "failed"."""
    abort = context.cancelled
    wake = threading.Event()
    box: Dict[str, Any] = {}

    def target() -> None:
        try:
            with current_turn(context._trace), (span.activated() if span is not None else nullcontext()):
                box["value"] = handler(event, context)
        except BaseException as err:  # noqa: BLE001 - a handler's failure is data for the circuit
            box["error"] = err
        finally:
            wake.set()

    remove_abort = abort.on_set(wake.set)
    remove_stop = stop.on_set(wake.set)
    worker = threading.Thread(target=target, name=f"cap-handler-{event['id']}", daemon=True)
    worker.start()
    grace_end: Optional[float] = None
    try:
        while True:
            if "value" in box or "error" in box:
                break
            cancelled = isinstance(abort.reason, Cancelled)
            if abort.is_set() and not cancelled:
                return TurnOutcome("released")
            if (stop.is_set() or cancelled) and grace_end is None:
                grace_end = time.monotonic() + shutdown_timeout
            if grace_end is not None:
                left = grace_end - time.monotonic()
                if left <= 0:
                    abort.set(CapSdkError("aborted", "the driver stopped before the handler finished"))
                    return TurnOutcome("cancelled" if isinstance(abort.reason, Cancelled) else "released")
                wake.wait(left)
            else:
                wake.wait()
            wake.clear()
    finally:
        remove_abort()
        remove_stop()
    if isinstance(abort.reason, Cancelled):
        # Whatever the handler returned or raised, it was told to stop: not a result, not a failure.
        return TurnOutcome("cancelled", value=box.get("value"), error=box.get("error"))
    if "error" in box:
        return TurnOutcome("released") if abort.is_set() else TurnOutcome("failed", error=box["error"])
    return TurnOutcome("done", value=box.get("value"))
