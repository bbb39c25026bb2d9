"""How a driver learns that the delivery its handler works on was cancelled (feature `cancel`): one
thread per running handler long-polls `GET /events/{id}/cancellation` with 20-second waits, so a turn
with nothing happening costs one request per 20 s and the kernel never has to connect out (it works
behind NAT, as polling does). `cancel_reason_of` reads the same news from a renew's or release's 409.

A watch that ends without a cancel renews the delivery's lease (CAP-CANCEL-9: the kernel holds it until
a third of the lease is left at most), so the watch is also the turn's renewal: `on_watching` tells the
lease keeper while the watch works (the keeper leaves the event alone) and when it failed or pauses (the
keeper's timer takes over until a watch is answered in time again), and `on_renewed` hands it each
answered lease end.

A watch starts a moment after its handler (a handler done by then needs none, so quick turns cost no
extra request) and ends when the turn does, its request cut off at once. It never raises and never
spins: failures and answers that came back too fast are retried after a growing pause.
"""
from __future__ import annotations

import threading
import time
from typing import Any, Callable, Dict, Optional

from ._backoff import Backoff
from ._trace_context import trace_call
from .errors import CapHttpError, CapSdkError
from .stop import StopSignal

#: Seconds each watch request waits for a cancel (CAP-CANCEL-16 asks for at least 20).
WATCH_WAIT_SECONDS = 20
#: Seconds after the handler starts before its watch does (the TypeScript SDK's 250 ms); a cancel made
#: earlier is answered at once then.
WATCH_DELAY = 0.25
#: A "no cancel" answer faster than this did not wait: the next request waits a backoff first.
FAST_ANSWER = 1.0
#: The watch's backoff: 1 s doubling to 30 s, and never sooner than a `Retry-After`.
BACKOFF_BASE, BACKOFF_CEILING = 1.0, 30.0


def cancel_reason_of(err: Exception) -> Optional[str]:
    """The cancel's reason when `err` is the 409 `lease_lost` a kernel answers for a cancelled delivery
    (`details: {cancelled: true, reason}`), else None."""
    if not isinstance(err, CapHttpError) or err.status != 409 or not err.details:
        return None
    if err.details.get("cancelled") is not True:
        return None
    reason = err.details.get("reason")
    return reason if isinstance(reason, str) and reason else "requested"


class CancelWatch:
    """Watches delivery `event["attempts"]` of one event until it is cancelled (`on_cancel(reason,
    requested_at)`), lost (`on_lost(error)`: a 409 or `event_not_found`), the route turns out to be missing
    (`on_unsupported()`: 404 of the route, 405), or `close()` is called. Other failures go to `on_error`
    and are retried. Those four run on the watch's thread, each at most once per watch. Each answer
    without a cancel (the kernel renewed the lease) goes to `on_renewed(lease_expires_at)`.
    `on_watching(True)` says the watch keeps the lease: from its first request, and again from each answer
    that waited as asked; `on_watching(False)` from a failure, an answer that came back too fast, or the
    end, so renewals take over until a watch is answered in time again. `lease` (seconds) scales what
    counts as an answer that came back too fast. `trace_context`: the headers each watch request carries."""

    def __init__(
        self,
        client: Any,
        event: Dict[str, Any],
        on_cancel: Callable[[str, Optional[str]], None],
        on_lost: Callable[[CapSdkError], None],
        on_error: Callable[[Exception], None],
        on_unsupported: Callable[[], None],
        jitter: float = 0.0,
        delay: float = WATCH_DELAY,
        wait_seconds: int = WATCH_WAIT_SECONDS,
        on_renewed: Optional[Callable[[Any], None]] = None,
        on_watching: Optional[Callable[[bool], None]] = None,
        lease: Optional[float] = None,
        trace_context: Optional[Dict[str, str]] = None,
    ) -> None:
        self._client = client
        self._trace = trace_call(trace_context)  # each watch is on the event's behalf (CAP-TRACE-9)
        self._event = event
        self._on_cancel, self._on_lost, self._on_error, self._on_unsupported = on_cancel, on_lost, on_error, on_unsupported
        self._on_renewed = on_renewed or (lambda at: None)
        self._on_watching = on_watching or (lambda keeping: None)
        self._delay = delay
        self._wait = wait_seconds
        # The kernel answers when a third of the lease is left: with short leases, sooner than a second.
        self._fast = min(FAST_ANSWER, wait_seconds / 4, (lease / 6) if lease else FAST_ANSWER)
        self._backoff = Backoff(BACKOFF_BASE, jitter, BACKOFF_CEILING)
        self._done = StopSignal()
        self._thread = threading.Thread(target=self._run, name=f"cap-cancel-watch-{event['id']}", daemon=True)

    def start(self) -> "CancelWatch":
        self._thread.start()
        return self

    def close(self) -> None:
        """End the watch: its request in flight is cut off at once. Does not wait for the thread."""
        self._done.set()

    def _pause(self, at_least: float = 0.0) -> None:
        self._on_watching(False)  # until a watch is answered in time again, the renew timer keeps the lease
        self._done.wait(self._backoff.next(min(at_least, 15 * 60)))

    def _run(self) -> None:
        try:
            self._watch()
        finally:
            self._on_watching(False)

    def _watch(self) -> None:
        if self._done.wait(self._delay):
            return
        event_id, attempts = self._event["id"], self._event["attempts"]
        self._on_watching(True)
        while not self._done.is_set():
            started = time.monotonic()
            try:
                answer = self._client.watch_cancellation(
                    event_id, attempts, wait_seconds=self._wait, cancel=self._done, retries=0, **self._trace
                )
            except CapHttpError as err:
                if self._done.is_set():
                    return
                if err.status == 409 or err.code == "event_not_found":
                    lost = CapSdkError("lease_lost", f"lost the lease of event {event_id}: {err.message}")
                    lost.__cause__ = err
                    self._on_lost(lost)
                    return
                if err.status in (404, 405):
                    self._on_unsupported()
                    return
                self._on_watching(False)
                self._on_error(err)
                if err.status in (400, 401, 403):
                    return  # asking again would be answered the same; the renew is the backstop
                self._pause(err.retry_after or 0.0)
                continue
            except CapSdkError as err:
                if self._done.is_set():
                    return
                self._on_watching(False)
                self._on_error(err)
                self._pause()
                continue
            if answer["cancelRequested"]:
                if not self._done.is_set():  # else the turn ended meanwhile: it is too late to stop it
                    self._done.set()
                    self._on_cancel(answer["reason"], answer.get("requestedAt") or None)
                return
            if self._done.is_set():
                return
            self._on_renewed(answer.get("leaseExpiresAt"))
            if time.monotonic() - started < self._fast:
                self._pause()  # the kernel did not wait: do not ask again at once
            else:
                self._backoff.reset()
                self._on_watching(True)
