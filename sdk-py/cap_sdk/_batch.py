"""The deliveries of one batch a driver holds, as its threads see them: the loop's (whose handler runs),
the lease keeper's (renewals answered 409: lost, or cancelled) and the cancellation watches'. The first
news of a delivery wins (lost or cancelled), and news of a turn that already ended is dropped, so a
handler's `ctx.cancelled` is set once and each `on_lease_lost` / `on_cancel` hook is called once. It
also keeps each delivery's trace context (the event's, or its driver span's once the turn started), which
every request made on the delivery's behalf sends. It never talks to the kernel and never raises.
"""
from __future__ import annotations

import threading
from typing import Any, Callable, Dict, Optional, Set, Union

from ._leases import LeaseKeeper
from ._trace_context import TurnTrace
from .errors import Cancelled, CapSdkError
from .stop import StopSignal


class Batch:
    """What the driver knows of the deliveries of one batch, shared by the loop's thread, the lease
    keeper's and the watches': which were lost, which cancelled, whose handler runs (its `ctx.cancelled`),
    which turns ended. The first of lost or cancelled wins, and news of a turn that ended is dropped."""

    def __init__(self, emit: Callable[[str, Any], None]) -> None:
        self.emit = emit
        self.keeper: Optional[LeaseKeeper] = None
        self._guard = threading.Lock()
        self._lost: Dict[str, CapSdkError] = {}
        self._cancels: Dict[str, Cancelled] = {}
        self._running: Dict[str, StopSignal] = {}
        self._ended: Set[str] = set()
        self._traces: Dict[str, TurnTrace] = {}

    def trace_of(self, event: Dict[str, Any]) -> TurnTrace:
        """The delivery's trace: what requests on its behalf send (the turn updates it with its span)."""
        with self._guard:
            trace = self._traces.get(event["id"])
            if trace is None:
                trace = self._traces[event["id"]] = TurnTrace(event)
            return trace

    def headers_of(self, event: Dict[str, Any]) -> Optional[Dict[str, str]]:
        """The trace headers of a request the runtime makes for `event` (renew, watch, release, ack)."""
        return self.trace_of(event).fixed

    def begin(self, event_id: str) -> Union[StopSignal, Cancelled, None]:
        """The turn's cancel signal; or the `Cancelled` of a delivery cancelled while it waited; or None
        when its lease was lost."""
        with self._guard:
            if event_id in self._lost:
                return None
            if event_id in self._cancels:
                self._ended.add(event_id)
                return self._cancels[event_id]
            signal = self._running[event_id] = StopSignal()
            return signal

    def end(self, event_id: str) -> None:
        with self._guard:
            self._ended.add(event_id)

    def cancel_of(self, event_id: str) -> Optional[Cancelled]:
        with self._guard:
            return self._cancels.get(event_id)

    def _known(self, event_id: str) -> bool:
        return event_id in self._lost or event_id in self._cancels or event_id in self._ended

    def lost(self, event: Dict[str, Any], error: CapSdkError) -> None:
        with self._guard:
            if self._known(event["id"]):
                return
            self._lost[event["id"]] = error
            signal = self._running.get(event["id"])
        self.emit("on_lease_lost", {"event": event, "error": error})
        if signal is not None:
            signal.set(error)

    def cancelled(self, event: Dict[str, Any], reason: str, requested_at: Optional[str] = None) -> None:
        with self._guard:
            if self._known(event["id"]):
                return
            cancelled = self._cancels[event["id"]] = Cancelled(reason, event["id"], requested_at)
            signal = self._running.get(event["id"])
        if self.keeper is not None:
            self.keeper.settle(event["id"])  # nothing to renew: the kernel keeps it for the ack alone
        if signal is not None:
            signal.set(cancelled)  # first: the handler should stop before any hook runs
        self.emit("on_cancel", {"event": event, "reason": reason, "requested_at": requested_at})
