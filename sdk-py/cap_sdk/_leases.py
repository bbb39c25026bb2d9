"""Keeps the leases of every event a driver holds: the one whose handler runs and the ones of the same
batch waiting for their turn (a batch of ten slow handlers would otherwise lose the last ones' leases).
One thread per batch renews each held event when `renew_at` of its lease has passed since the lease was
last extended, fenced by the delivery's `attempts`. A 409 `lease_lost` (or `event_not_found`) drops the
event and reports the loss once, or the cancel when the 409 says the delivery was cancelled
(`details.cancelled`, feature `cancel`); a 404/405 of the route itself means the kernel cannot renew, and
the keeper stops for good. It never raises.

Where the kernel offers `cancel`, the running handler's cancellation watch renews the lease too (a watch
ending without a cancel renews it, CAP-CANCEL-9): while the watch works (`watching`) the keeper leaves
that event alone, and each watch answer counts as a renewal (`renewed`). When the watch fails or pauses
the keeper's timer takes over from the last known lease end. A watched lease is renewed anyway only when an
eighth of it is left (the watch is late: a hung request), and an answer that leaves the lease where it
was says the kernel's watch does not renew (`renewed` returns False): the caller stops counting on it.
"""
from __future__ import annotations

import threading
import time
from datetime import datetime
from typing import Any, Callable, Dict, List, Optional

from ._cancellation import cancel_reason_of
from ._trace_context import trace_call
from .errors import CapHttpError, CapSdkError
from .stop import StopSignal

#: A watched lease is renewed anyway when this share of it is left: later than the kernel ends a watch (a
#: third left), so only a late watch costs a renewal. The TypeScript SDK's BACKSTOP_LEFT.
BACKSTOP_LEFT = 1 / 8


def expires_at(lease_expires_at: Any) -> Optional[float]:
    """A `leaseExpiresAt` (RFC 3339) as seconds since the epoch, or None when it is not one."""
    if not isinstance(lease_expires_at, str):
        return None
    try:
        return datetime.fromisoformat(lease_expires_at.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def seconds_left(lease_expires_at: Any) -> Optional[float]:
    """Seconds left of a lease by its `leaseExpiresAt` on this machine's clock, or None when it does not say."""
    ends = expires_at(lease_expires_at)
    return None if ends is None else ends - time.time()


class _Held:
    """One held delivery: when its lease ends and when the keeper renews it, both on the monotonic clock."""

    def __init__(self, event: Dict[str, Any], ends: float, due: float) -> None:
        self.event = event
        self.ends = ends
        self.due = due
        #: The kernel's last `leaseExpiresAt` of it (seconds since the epoch), None while it gave none.
        self.expires = expires_at(event.get("leaseExpiresAt"))
        #: A working cancellation watch renews it: the keeper only backs it up.
        self.watched = False
        #: After a failed renewal, not again before this.
        self.retry_at = 0.0


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
        trace_of: Optional[Callable[[Dict[str, Any]], Optional[Dict[str, str]]]] = None,
    ) -> None:
        self._client = client
        self._lease = max(0.01, lease)
        self._renew_at = renew_at
        self._interval = max(0.01, lease * renew_at)
        # What is left of the batch's lease (`left`, from its `leaseExpiresAt`): a replayed poll hands back
        # deliveries claimed earlier, whose lease would otherwise lapse before a whole interval has passed.
        self._left = self._lease if left is None else max(0.0, min(self._lease, left))
        self._held: Dict[str, _Held] = {}
        self._wake = threading.Condition()
        self._done = StopSignal()
        self._on_renew, self._on_error, self._on_lost, self._on_unsupported = on_renew, on_error, on_lost, on_unsupported
        self._on_cancelled = on_cancelled
        #: The trace headers a renewal of an event sends (CAP-TRACE-9), read at each renewal.
        self._trace_of = trace_of or (lambda event: None)
        self._thread: Optional[threading.Thread] = None

    def _schedule(self, held: _Held, now: float, left: float) -> None:
        """The lease was extended at `now` with `left` seconds to run: renew after `renew_at` of that."""
        held.ends = now + left
        held.due = now + min(self._interval, max(0.0, left * self._renew_at))

    def hold(self, event: Dict[str, Any]) -> None:
        now = time.monotonic()
        with self._wake:
            held = self._held[event["id"]] = _Held(event, now, now)
            self._schedule(held, now, self._left)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="cap-lease-keeper", daemon=True)
                self._thread.start()
            self._wake.notify_all()

    def settle(self, event_id: str) -> None:
        """Stop renewing `event_id` (acked, released, failed, or given up)."""
        with self._wake:
            self._held.pop(event_id, None)

    def watching(self, event_id: str, keeping: bool) -> None:
        """Whether the cancellation watch of `event_id` keeps its lease: True while it works, False from a
        failure or a pause (then the keeper renews it, at once when its renewal is overdue)."""
        with self._wake:
            held = self._held.get(event_id)
            if held is not None:
                held.watched = keeping
            self._wake.notify_all()

    def renewed(self, event_id: str, lease_expires_at: Any) -> bool:
        """A watch of `event_id` answered without a cancel: the kernel renewed the lease, to
        `lease_expires_at`. False (and the event no longer counted as watched) when that end is no later
        than the last one known: this kernel's watch does not renew."""
        now = time.monotonic()
        expires = expires_at(lease_expires_at)
        with self._wake:
            held = self._held.get(event_id)
            if held is None:
                return True
            if expires is None or (held.expires is not None and expires <= held.expires):
                held.watched = False
                self._wake.notify_all()
                return False
            held.expires = expires
            # Never more than a whole lease: a clock ahead of the kernel's must not postpone a renewal.
            self._schedule(held, now, max(0.0, min(self._lease, expires - time.time())))
            held.retry_at = 0.0
            self._wake.notify_all()
            return True

    def close(self) -> None:
        self._done.set()
        with self._wake:
            self._wake.notify_all()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)

    def _when(self, held: _Held) -> float:
        return max(held.retry_at, max(held.due, held.ends - self._lease * BACKSTOP_LEFT) if held.watched else held.due)

    def _next(self) -> List[_Held]:
        """Waits until some held event is due (or the keeper is closed: empty); returns those due."""
        with self._wake:
            while not self._done.is_set():
                now = time.monotonic()
                due = [h for h in self._held.values() if self._when(h) <= now]
                if due:
                    return due
                soonest = min((self._when(h) for h in self._held.values()), default=None)
                self._wake.wait(None if soonest is None else soonest - now)
        return []

    def _run(self) -> None:
        while True:
            due = self._next()
            if not due:
                return
            for held in due:
                if self._done.is_set():
                    return
                event = held.event
                with self._wake:
                    if self._held.get(event["id"]) is not held or self._when(held) > time.monotonic():
                        continue  # settled, or a watch answer renewed it meanwhile
                sent = time.monotonic()
                try:
                    renewed = self._client.renew(
                        event["id"], event["attempts"], cancel=self._done, retries=0, timeout=max(1.0, self._interval / 2),
                        **trace_call(self._trace_of(event)),
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
                        self._retry_soon(held)
                        self._on_error(event, err)
                except CapSdkError as err:
                    if self._done.is_set():
                        return
                    self._retry_soon(held)
                    self._on_error(event, err)
                else:
                    with self._wake:
                        # From when it was sent: the kernel extended the lease after that.
                        self._schedule(held, sent, self._lease)
                        held.retry_at = 0.0
                        held.expires = expires_at(renewed["leaseExpiresAt"]) or held.expires
                    self._on_renew(event, renewed["leaseExpiresAt"])

    def _retry_soon(self, held: _Held) -> None:
        """Little of the lease is left after a failed renewal: try again sooner than a whole interval."""
        with self._wake:
            held.retry_at = time.monotonic() + max(0.01, self._interval / 4)
