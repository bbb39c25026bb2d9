"""`run_driver`: the poll → dedup → handle → ack loop every CAP driver needs, done once and right.

Long-poll with a fallback to interval polling; a handled-ids store so redeliveries are re-acked without
running the handler; acks with an outcome (batched with `POST /events/ack` where the kernel offers
`batch-ack`); renewal of every held event's lease; on a handler failure the retry circuit (a delay chosen
by the failure's class), with the event released for the circuit's delay where the kernel offers
`release`; poll backoff that never gives up except on three consecutive 401/403, and the same backoff
before the next poll after a batch whose acks failed or whose events the kernel had already acked (so no
answer, however wrong, makes it spin); where the kernel offers `cancel`, a watch of each running handler's
delivery, and on a cancel the handler told to stop and the event acked `cancelled` once it has; a graceful
stop on SIGINT/SIGTERM. It prints nothing (hooks report everything) and never acks an event whose handler
did not finish, except one that was cancelled.
Mirrors sdk-ts/src/driver.ts; threads, not asyncio (README § Why threads). Acks and releases are in
`_settle.py`, lease renewal in `_leases.py`, the cancellation watch in `_cancellation.py`, one handler turn
in `_turn.py`, trace context in `_trace_context.py` and `_otel_bridge.py`, stopping in `stop.py`; what is
left is the loop, one idea (about 550 lines, a tenth of them run_driver's reference docstring).
"""
from __future__ import annotations

import math
import threading
import time
import uuid
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple, Union

from ._backoff import Backoff
from ._batch import Batch
from ._cancellation import CancelWatch
from ._fingerprint import stable_jitter
from ._leases import LeaseKeeper, seconds_left
from ._otel_bridge import TurnSpan, start_turn_span
from ._settle import Settler
from ._turn import HandlerContext, run_turn
from .circuit import RetryCircuit, classify_failure
from .errors import Cancelled, CapHttpError, CapSdkError
from .stop import StopSignal, follow, on_stop_signals
from .stores import HandledStore, MemoryHandledStore

Handler = Callable[[Dict[str, Any], HandlerContext], Optional[Dict[str, Any]]]
Hook = Callable[[Dict[str, Any]], None]

#: A long-poll answered empty faster than this (or a quarter of the wait) did not wait.
FAST_EMPTY = 1.0
_HOOKS = (
    "on_event", "on_ack", "on_error", "on_circuit", "on_poll_error", "on_backoff", "on_renew", "on_lease_lost",
    "on_poll_mode", "on_release", "on_cancel",
)


@dataclass
class DriverSummary:
    """Counts of what a driver did, returned when it stops gracefully."""

    polls: int = 0
    #: Events whose handler completed and that were acked (or whose ack was attempted).
    handled: int = 0
    #: Redeliveries of handled events, re-acked without running the handler.
    duplicates: int = 0
    #: Events of unknown types acked `skipped`.
    skipped: int = 0
    #: Handler failures (no ack).
    failures: int = 0
    #: Events given up without an ack: lease lost, or shutdown before the handler finished.
    released: int = 0
    #: Events handed back to the kernel with `release` (failed, not started, or given up at a stop).
    returned: int = 0
    #: Deliveries cancelled while the driver held them (feature `cancel`), acked `cancelled`; not failures.
    cancelled: int = 0


def run_driver(
    client: Any,
    handlers: Union[Handler, Mapping[str, Handler]],
    *,
    on_unknown: Optional[Handler] = None,
    stop: Optional[threading.Event] = None,
    handle_signals: bool = True,
    limit: int = 10,
    wait_seconds: int = 20,
    poll_interval: float = 5.0,
    store: Optional[HandledStore] = None,
    renew_at: float = 0.5,
    lease_seconds: float = 30.0,
    shutdown_timeout: float = 10.0,
    agent_key: Optional[str] = None,
    agent_name: Optional[str] = None,
    **hooks: Hook,
) -> DriverSummary:
    """Runs a driver until `stop` is set or SIGINT/SIGTERM arrives (returns a `DriverSummary`), or until
    the kernel refuses the token three polls in a row (raises `CapSdkError` `auth_stopped`).

    `handlers`: one callable for every event type, or a dict of callables by type (other types go to
    `on_unknown`, or are acked `skipped`). A handler is called as `handler(event, ctx)` in a worker
    thread; returning None acks `acknowledged` (or `posted` after `ctx.reply`), returning an AckResult
    dict acks with it, raising means "not handled": no ack, the batch stops, the retry circuit applies.
    `stop`: any `threading.Event`; setting it interrupts an in-flight long-poll too (a `StopSignal` at
    once, a plain Event within 0.1 s).
    `handle_signals`: on the main thread, SIGINT/SIGTERM set `stop` (a second SIGINT raises
    KeyboardInterrupt). `limit` events per poll (capped by `/info`), `wait_seconds` long-poll wait
    (0: interval polling every `poll_interval` seconds, also the base of the poll and ack backoffs and of the
    circuit's runtime steps), `store` the handled-ids store (default `MemoryHandledStore()`), `renew_at` the
    fraction of the lease after which held events are renewed, `lease_seconds` the lease to assume when
    neither `/info` nor `leaseExpiresAt` says, `shutdown_timeout` how long a running handler may finish
    after a stop before it is released (and after a cancel before the event is acked `cancelled` anyway),
    `agent_key` the seed of the stable 0–20 % delay offset (default the token's fingerprint), `agent_name`
    the agent's name in trace spans (CAP does not tell a driver its name; without it the span is named
    `invoke_agent` and carries no `gen_ai.agent.name`).

    Trace context (feature `trace-context`): every request made on behalf of an event that carries a
    `traceContext` sends it as `traceparent` (and `tracestate`, unchanged): the handler's `ctx.reply` and
    every `CapClient` call made in its thread, and the driver's renewals, cancellation watches, releases
    and single acks (a batch ack, which settles events of several traces, sends none); `ctx.trace_context`
    is that context. Where `opentelemetry` is importable, each handler runs in a consumer span
    `invoke_agent {agent_name}` (parent: the event's `traceparent`; GenAI and messaging attributes), current
    in the handler's thread and ended once the event is settled, with the handler's exception recorded;
    those requests then carry the span's own context.

    Cancellation (where `/info` lists `cancel`): while a handler runs, the driver watches its delivery
    (`GET /events/{id}/cancellation`, 20-second long-polls; a renew answered 409 with `details.cancelled`
    says the same). Each watch answer without a cancel renews the lease (the kernel holds a watch until a
    third of the lease is left at most), so while the watch works the event is not renewed separately:
    an idle turn costs one request per 20 s; when it fails, renewals take over from the last lease end.
    On a cancel it sets `ctx.cancelled` (reason a `Cancelled`; `ctx.cancel_reason` says why), stops
    renewing, makes `ctx.reply` raise `Cancelled`, and once the handler returns or raises (or
    `shutdown_timeout` has passed) acks the event `{outcome: "cancelled", reason}` whatever the handler
    returned: no failure, no circuit. A waiting event of the batch found cancelled is acked `cancelled`
    without running its handler.

    Hooks (each called with one dict; a hook that raises is ignored): `on_event` (the event),
    `on_ack` {event, result, duplicate}, `on_error` {stage: handler|ack|renew|release|info|store|watch, error,
    event?, failure_class?}, `on_circuit` {failure_class, consecutive, open, delay, event_id},
    `on_poll_error` {error, consecutive, delay}, `on_backoff` {reason, consecutive, delay} (a batch could
    not be settled — acks failed other than `event_not_found`, or were answered with something the driver
    cannot act on, or the poll delivered again events whose acks the kernel had confirmed — so the next poll
    waits `delay`: `poll_interval` doubling up to 15 minutes, never less than a `Retry-After`),
    `on_renew` {event, lease_expires_at} (a renewal, or a watch answer without a cancel, which renews),
    `on_lease_lost` {event, error}, `on_poll_mode` {mode: long-poll|interval, reason},
    `on_release` {event, delay_seconds, reason}, `on_cancel` {event, reason, requested_at} (the driver
    learned that a delivery it holds was cancelled; `on_error` stage `watch` reports a failed watch).
    """
    unknown = set(hooks) - set(_HOOKS)
    if unknown:
        raise TypeError(f"run_driver: unknown hook(s) {sorted(unknown)}; known: {list(_HOOKS)}")
    loop = _DriverLoop(
        client, handlers, on_unknown, stop, limit, wait_seconds, poll_interval, store, renew_at,
        lease_seconds, shutdown_timeout, agent_key, hooks, agent_name,
    )
    return loop.run(handle_signals)


class _DriverLoop:
    def __init__(self, client, handlers, on_unknown, stop, limit, wait, interval, store, renew_at,
                 lease_seconds, shutdown_timeout, agent_key, hooks, agent_name=None) -> None:  # noqa: ANN001 - private
        self.client = client
        self.handlers = handlers
        self.on_unknown = on_unknown
        self.user_stop = stop
        self.stop = StopSignal()
        self.limit = limit
        self.wait = wait
        self.interval = interval
        self.store: HandledStore = store if store is not None else MemoryHandledStore()
        self.renew_at = renew_at
        self.lease_seconds = lease_seconds
        self.shutdown_timeout = shutdown_timeout
        self.jitter = stable_jitter(agent_key or client.fingerprint)
        self.circuit = RetryCircuit(interval, self.jitter)
        self.hooks = hooks
        self.summary = DriverSummary()
        self.info: Optional[Dict[str, Any]] = None
        self.info_settled = False
        self.features: set = set()
        self.fast_empties = 0
        self.poll_backoff = Backoff(interval, self.jitter)
        #: Before the next poll, after batches the kernel's answers would not let the driver settle.
        self.ack_backoff = Backoff(interval, self.jitter)
        self.auth_failures = 0
        self.renew_supported = True
        #: Whether a cancellation watch ending without a cancel renews the lease, as CAP-CANCEL-9 says;
        #: False for the rest of the run once an answer left a lease where it was.
        self.watch_renews = True
        self.poll_id: Optional[str] = None
        self.settler = Settler(client, self.features, self.emit, self._count_release)
        #: Names the agent in trace spans; CAP does not tell a driver its agent's name.
        self.agent_name: Optional[str] = agent_name

    # ---- plumbing ---------------------------------------------------------------------------------
    def emit(self, hook: str, arg: Any) -> None:
        fn = self.hooks.get(hook)
        if fn is None:
            return
        try:
            fn(arg)
        except Exception:  # a hook must not break the loop
            pass

    def _count_release(self) -> None:
        self.summary.returned += 1

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            self.stop.wait(seconds)

    def run(self, handle_signals: bool) -> DriverSummary:
        restore = on_stop_signals(self.stop) if handle_signals else (lambda: None)
        if self.user_stop is not None:
            follow(self.user_stop, self.stop)
        try:
            return self._loop()
        finally:
            restore()
            self.stop.set()  # ends what follows the user's stop along with the loop

    # ---- the loop ---------------------------------------------------------------------------------
    def _loop(self) -> DriverSummary:
        announced = False
        while not self.stop.is_set():
            if not self.info_settled:
                self._load_info()
            if not announced and not self.stop.is_set():
                announced = True
                reason = "from /info" if self.info else "no /info; trying long-poll"
                self.emit("on_poll_mode", {"mode": "long-poll" if self.wait > 0 else "interval", "reason": reason})
            events = self._poll()
            if events is None:
                continue
            if not events:
                if self.wait == 0:
                    self.sleep(self.interval)
                continue
            # A kernel never delivers an event again once it answered 200 to its ack (CAP-ACK-4).
            back = sum(1 for e in events if self.settler.settled(e["id"]))
            delay = self._run_batch(events)
            self.sleep(max(delay, self._trouble_delay(back)))
        return self.summary

    def _trouble_delay(self, back: int) -> float:
        """The backoff before the next poll when the batch could not be settled — acks failed, or the poll
        handed back `back` events whose acks the kernel had confirmed — else 0 (and the backoff starts over).
        Without it a kernel that refuses acks, or forgets them, would be polled as fast as it answers."""
        trouble = self.settler.take_trouble()
        again = f"the kernel delivered again {back} event(s) it had confirmed acked" if back else ""
        reason = "; ".join(r for r in (trouble[0] if trouble else "", again) if r)
        if not reason:
            self.ack_backoff.reset()
            return 0.0
        delay = self.ack_backoff.next(trouble[1] if trouble else 0.0)
        if not self.stop.is_set():
            self.emit("on_backoff", {"reason": reason, "consecutive": self.ack_backoff.failures, "delay": delay})
        return delay

    def _load_info(self) -> None:
        try:
            info = self.client.info(cancel=self.stop, retries=0)
        except CapHttpError as err:
            # No /info (the production kernel has none): learn by trying. 401/403: ask again next time.
            if 400 <= err.status < 500 and err.status != 429:
                self.info_settled = err.status not in (401, 403)
            else:
                self.emit("on_error", {"stage": "info", "error": err})
            return
        except CapSdkError as err:
            if not self.stop.is_set():
                self.emit("on_error", {"stage": "info", "error": err})
            return
        self.info, self.info_settled = info, True
        self.features.clear()
        self.features.update(info["features"])  # in place: the settler reads the same set
        self.limit = max(1, min(self.limit, info["maxLimit"]))
        self.wait = min(self.wait, info["maxWaitSeconds"]) if "long-poll" in self.features else 0
        self.renew_supported = "renew" in self.features

    def _poll(self) -> Optional[List[Dict[str, Any]]]:
        started = time.monotonic()
        self.summary.polls += 1
        if "poll-replay" in self.features and self.poll_id is None:
            self.poll_id = str(uuid.uuid4())
        try:
            answer = self.client.poll(
                limit=self.limit,
                wait_seconds=self.wait if self.wait > 0 else None,
                poll_id=self.poll_id,
                cancel=self.stop,
                retries=0,
            )
        except (CapHttpError, CapSdkError) as err:
            if self.stop.is_set():
                return None
            auth = isinstance(err, CapHttpError) and err.status in (401, 403)
            self.auth_failures = self.auth_failures + 1 if auth else 0
            if self.auth_failures >= 3:
                stopped = CapSdkError(
                    "auth_stopped",
                    f"stopped after 3 consecutive {err.status} answers to polls ({err.code}): "  # type: ignore[union-attr]
                    "the token was revoked or the agent uninstalled; re-attach it",
                )
                raise stopped from err
            if self.wait > 0 and isinstance(err, CapHttpError) and err.status == 400:
                self.wait = 0
                self.emit("on_poll_mode", {"mode": "interval", "reason": f"the kernel rejected waitSeconds ({err.code})"})
            if isinstance(err, CapHttpError) and err.status == 400 and self.poll_id is not None:
                self.features.discard("poll-replay")
                self.poll_id = None
            # A lost answer keeps its poll id: the next poll replays the deliveries it claimed.
            # Never sooner than the kernel asked (CAP-DRV-12): a Retry-After longer than the backoff wins.
            retry_after = err.retry_after if isinstance(err, CapHttpError) and err.retry_after is not None else 0.0
            delay = self.poll_backoff.next(min(retry_after, self.poll_backoff.ceiling))
            consecutive = self.auth_failures if auth else self.poll_backoff.failures
            self.emit("on_poll_error", {"error": err, "consecutive": consecutive, "delay": delay})
            self.sleep(delay)
            return None
        self.poll_id = None
        self.poll_backoff.reset()
        self.auth_failures = 0
        events = answer["events"]
        self._detect_ignored_wait(len(events), time.monotonic() - started)
        return events

    def _detect_ignored_wait(self, count: int, elapsed: float) -> None:
        """The production kernel ignores `waitSeconds`: two empty answers far faster than the wait mean no long-poll."""
        if self.wait == 0 or count > 0:
            return
        threshold = min(FAST_EMPTY, self.wait * 0.25)
        if elapsed >= threshold:
            self.fast_empties = 0
            return
        self.fast_empties += 1
        if self.fast_empties < 2:
            return
        self.wait = 0
        self.emit("on_poll_mode", {"mode": "interval", "reason": f"two empty polls answered in under {threshold:g} s: waitSeconds is ignored"})

    # ---- a batch ----------------------------------------------------------------------------------
    def _lease_left(self, event: Dict[str, Any]) -> Optional[float]:
        """Seconds left of the event's lease by its `leaseExpiresAt`, or None when it does not say."""
        return seconds_left(event.get("leaseExpiresAt"))

    def _lease_length(self, event: Dict[str, Any]) -> float:
        if self.info:
            return float(self.info["leaseSeconds"])
        left = self._lease_left(event)
        if left is not None and left > 0:
            return left
        return self.lease_seconds

    def _run_batch(self, events: List[Dict[str, Any]]) -> float:
        """Handles a batch in order; returns the circuit delay after a handler failure, else 0."""
        batch = Batch(self.emit)

        def unsupported() -> None:
            self.renew_supported = False

        if self.renew_supported:
            batch.keeper = LeaseKeeper(
                self.client, self._lease_length(events[0]), self.renew_at,
                on_renew=lambda e, at: self.emit("on_renew", {"event": e, "lease_expires_at": at}),
                on_error=lambda e, err: self.emit("on_error", {"stage": "renew", "error": err, "event": e}),
                on_lost=batch.lost,
                on_unsupported=unsupported,
                left=self._lease_left(events[0]),
                on_cancelled=batch.cancelled,
                trace_of=batch.headers_of,
            )
            for event in events:
                batch.keeper.hold(event)
        delay = 0.0
        try:
            for index, event in enumerate(events):
                if self.stop.is_set():
                    self._give_back(events[index:], batch, "the driver is stopping")
                    break
                turn = batch.begin(event["id"])
                if isinstance(turn, Cancelled):
                    self._settle_cancelled(event, turn, batch)  # cancelled while it waited: never run
                    continue
                if turn is None:
                    continue  # another poller holds it now
                failed = self._process(event, turn, batch)
                batch.end(event["id"])
                if failed is not None:
                    delay = failed
                    self._give_back(events[index + 1:], batch, "an earlier event of the batch failed")
                    break
        finally:
            self.settler.flush()
            if batch.keeper is not None:
                batch.keeper.close()
        return delay

    def _give_back(self, events: List[Dict[str, Any]], batch: Batch, reason: str) -> None:
        """Events of the batch that will not run now: released at once where the kernel can, else left
        to their leases (no longer renewed), so another poller (or this one) gets them back. One found
        cancelled meanwhile cannot be released: it is acked `cancelled`."""
        for event in events:
            if batch.keeper is not None:
                batch.keeper.settle(event["id"])
            cancelled = batch.cancel_of(event["id"])
            if cancelled is not None:
                self._settle_cancelled(event, cancelled, batch)
            else:
                self.settler.release(event, 0, reason, batch.headers_of(event))

    def _settle_cancelled(self, event: Dict[str, Any], cancelled: Cancelled, batch: Batch) -> Dict[str, Any]:
        """Ack a cancelled delivery `cancelled` with the cancel's reason (CAP-CANCEL-18); returns the result."""
        self.summary.cancelled += 1
        result = {"outcome": "cancelled", "reason": cancelled.reason}
        self._remember(event, result)
        self._ack(event, result, False, batch)
        return result

    def _handler_for(self, event_type: str) -> Optional[Handler]:
        if callable(self.handlers):
            return self.handlers  # type: ignore[return-value]
        handler = self.handlers.get(event_type)
        return handler if callable(handler) else self.on_unknown

    def _watch(self, event: Dict[str, Any], batch: Batch) -> Optional[CancelWatch]:
        """A watch of the running handler's delivery, where the kernel offers `cancel` (CAP-CANCEL-16).
        Its answers renew the lease (CAP-CANCEL-9), so while it works the lease keeper leaves the event
        alone and a running turn with nothing happening costs one request per 20 s."""
        if "cancel" not in self.features:
            return None
        keeper = batch.keeper

        def unsupported() -> None:
            self.features.discard("cancel")  # advertised but not routed: the renew's 409 is the backstop

        def watching(keeping: bool) -> None:
            if keeper is not None:
                keeper.watching(event["id"], keeping and self.watch_renews)

        def renewed(lease_expires_at: Any) -> None:
            if keeper is not None and not keeper.renewed(event["id"], lease_expires_at):
                self.watch_renews = False  # it left the lease where it was: renew as before, for the whole run
                return
            self.emit("on_renew", {"event": event, "lease_expires_at": lease_expires_at})

        return CancelWatch(
            self.client, event,
            on_cancel=lambda reason, at: batch.cancelled(event, reason, at),
            on_lost=lambda error: batch.lost(event, error),
            on_error=lambda error: self.emit("on_error", {"stage": "watch", "error": error, "event": event}),
            on_unsupported=unsupported,
            jitter=self.jitter,
            on_renewed=renewed,
            on_watching=watching,
            lease=self._lease_length(event),
            trace_context=batch.headers_of(event),
        ).start()

    def _process(self, event: Dict[str, Any], cancel: StopSignal, batch: Batch) -> Optional[float]:
        """Dedup, dispatch, ack — in the event's span, where OpenTelemetry records spans. Returns the circuit
        delay when the handler failed. Never raises."""
        span = start_turn_span(event, batch.trace_of(event), self.agent_name)  # None without OpenTelemetry
        ending: Dict[str, Any] = {"given_up": "driver_stopped"}
        try:
            delay, ending = self._handle(event, cancel, batch, span)
            return delay
        finally:
            if span is not None:
                span.finish(ending)  # once the event is settled: its ack or release is made inside the span

    def _handle(
        self, event: Dict[str, Any], cancel: StopSignal, batch: Batch, span: Optional[TurnSpan]
    ) -> Tuple[Optional[float], Dict[str, Any]]:
        """`_process` but for the span: (the circuit delay after a failure, how the turn ended)."""
        self.emit("on_event", event)
        prior = self._lookup(event["id"])
        if prior is not None:
            self.summary.duplicates += 1
            self._ack(event, prior, True, batch)
            return None, {"acked": prior, "duplicate": True}
        handler = self._handler_for(event["type"])
        if handler is None:
            self.summary.skipped += 1
            result = {"outcome": "skipped", "reason": f"no handler for event type {event['type']}"}
            self._remember(event, result)
            self._ack(event, result, False, batch)
            return None, {"acked": result}
        self.settler.flush()  # acks never wait for a handler to run
        posted: List[str] = []
        context = HandlerContext(event, self.client, cancel, posted.append, batch.trace_of(event))
        watch = self._watch(event, batch)
        try:
            outcome = run_turn(event, handler, context, self.stop, self.shutdown_timeout, span)
        finally:
            if watch is not None:
                watch.close()
        keeper = batch.keeper
        if outcome.kind == "cancelled":
            # Told to stop: whatever it returned or raised is neither a result nor a failure.
            return None, {"acked": self._settle_cancelled(event, cancel.reason, batch)}  # type: ignore[arg-type]
        if outcome.kind == "released":
            self.summary.released += 1
            if keeper is not None:
                keeper.settle(event["id"])
            reason = cancel.reason
            if isinstance(reason, CapSdkError) and reason.code == "lease_lost":
                return None, {"given_up": "lease_lost"}
            self.settler.release(event, 0, "the driver stopped before the handler finished", batch.headers_of(event))
            return None, {"given_up": "driver_stopped"}
        if outcome.kind == "failed":
            self.summary.failures += 1
            if keeper is not None:
                keeper.settle(event["id"])
            failure_class = classify_failure(outcome.error)
            decision = self.circuit.failure(failure_class)
            self.emit("on_error", {"stage": "handler", "error": outcome.error, "event": event, "failure_class": failure_class})
            self.emit("on_circuit", {**decision.__dict__, "event_id": event["id"]})
            # Back when the circuit's probe is due, not when the lease would have ended; when stopping
            # (a handler cut short fails too) at once: the circuit is this process's, and it is ending.
            delay = 0 if self.stop.is_set() else min(900, math.ceil(decision.delay))
            message = str(outcome.error) or type(outcome.error).__name__
            reason = f"handler failed ({failure_class}, {decision.consecutive} in a row): {message}"
            self.settler.release(event, delay, reason[:500], batch.headers_of(event))
            return decision.delay, {"failed": outcome.error, "failure_class": failure_class}
        self.circuit.reset()
        self.summary.handled += 1
        value = outcome.value
        if isinstance(value, dict) and isinstance(value.get("outcome"), str):
            result = value
        elif posted:
            ids = [p for p in posted if p]
            result = {"outcome": "posted", **({"messageId": ids[-1]} if ids else {})}
        else:
            result = {"outcome": "acknowledged"}
        self._remember(event, result)
        self._ack(event, result, False, batch)
        return None, {"acked": result}

    def _lookup(self, event_id: str) -> Optional[Dict[str, Any]]:
        try:
            return self.store.get(event_id)
        except Exception as err:  # noqa: BLE001 - a broken store must not stop the driver
            self.emit("on_error", {"stage": "store", "error": err})
            return None

    def _remember(self, event: Dict[str, Any], result: Dict[str, Any]) -> None:
        try:
            self.store.set(event["id"], result)
        except Exception as err:  # noqa: BLE001
            self.emit("on_error", {"stage": "store", "error": err, "event": event})

    def _ack(self, event: Dict[str, Any], result: Dict[str, Any], duplicate: bool, batch: Batch) -> None:
        if batch.keeper is not None:
            batch.keeper.settle(event["id"])
        self.settler.ack(event, result, duplicate, batch.headers_of(event))

