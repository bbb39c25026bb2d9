"""Keeps the leases of every event a driver holds: the one whose handler runs and the ones of the same
batch waiting for their turn (a batch of ten slow handlers would otherwise lose the last ones' leases).
One thread per batch renews each held event every `renew_at` of the lease, fenced by the delivery's
`attempts`. A 409 `lease_lost` (or `event_not_found`) drops the event and reports the loss once, or the
cancel when the 409 says the delivery was cancelled (`details.cancelled`, feature `cancel`); a 404/405
of the route itself means the kernel cannot renew, and the keeper stops for good. It never raises.
"""
from __future__ import annotations

import threading
from typing import Any, Callable, Dict, Optional

from ._cancellation import cancel_reason_of
from .errors import CapHttpError, CapSdkError
from .stop import StopSignal


class LeaseKeeper:
    def __init__(
        self,
        client: Any,
        lease: float,
        renew_at: float,
        on_renew: Callable[[Dict[str, Any], str], None],
        on_error: Callable[[Dict[str, Any], Exception], None],
        on_lost: Callable[[Dict[str, Any], CapSdkError], None],
        on_unsupported: Callable[[], None],
        left: Optional[float] = None,
        on_cancelled: Optional[Callable[[Dict[str, Any], str], None]] = None,
    ) -> None:
        self._client = client
        self._interval = max(0.01, lease * renew_at)
        # The first renewal comes after the same share of what is left of the batch's lease (`left`, from
        # its `leaseExpiresAt`): a replayed poll hands back deliveries claimed earlier, whose lease would
        # otherwise lapse before a whole interval has passed.
        self._first = self._interval if left is None else min(self._interval, max(0.0, left * renew_at))
        self._held: Dict[str, Dict[str, Any]] = {}
        self._lock = threading.Lock()
        self._done = StopSignal()
        self._on_renew, self._on_error, self._on_lost, self._on_unsupported = on_renew, on_error, on_lost, on_unsupported
        self._on_cancelled = on_cancelled
        self._thread: Optional[threading.Thread] = None

    def hold(self, event: Dict[str, Any]) -> None:
        with self._lock:
            self._held[event["id"]] = event
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="cap-lease-keeper", daemon=True)
                self._thread.start()

    def settle(self, event_id: str) -> None:
        """Stop renewing `event_id` (acked, released, failed, or given up)."""
        with self._lock:
            self._held.pop(event_id, None)

    def close(self) -> None:
        self._done.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)

    def _run(self) -> None:
        wait = self._first
        while not self._done.wait(wait):
            wait = self._interval
            with self._lock:
                held = list(self._held.values())
            for event in held:
                if self._done.is_set():
                    return
                with self._lock:
                    if event["id"] not in self._held:
                        continue
                try:
                    renewed = self._client.renew(
                        event["id"], event["attempts"], cancel=self._done, retries=0, timeout=max(1.0, self._interval / 2)
                    )
                except CapHttpError as err:
                    reason = cancel_reason_of(err)
                    if reason is not None and self._on_cancelled is not None:
                        self.settle(event["id"])
                        self._on_cancelled(event, reason)
                    elif err.status == 409 or err.code == "event_not_found":
                        self.settle(event["id"])
                        lost = CapSdkError("lease_lost", f"lost the lease of event {event['id']}: {err.message}")
                        lost.__cause__ = err
                        self._on_lost(event, lost)
                    elif err.status in (404, 405):
                        self._on_unsupported()
                        return
                    else:
                        self._on_error(event, err)
                        wait = max(0.01, self._interval / 4)  # little of the lease is left: try again sooner
                except CapSdkError as err:
                    if self._done.is_set():
                        return
                    self._on_error(event, err)
                    wait = max(0.01, self._interval / 4)
                else:
                    self._on_renew(event, renewed["leaseExpiresAt"])
