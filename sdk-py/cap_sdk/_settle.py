"""How a driver settles events with the kernel: acks, one by one or — where the kernel advertises
`batch-ack` — gathered and sent as one `POST /events/ack` when the driver is about to wait (before a
handler runs, at the end of a batch), and releases where it advertises `release`. An item a batch
answers `{ok: false, code}` is reported as that code would be on a single ack. A batch route that is
advertised but missing (404/405) makes it fall back to single acks for the rest of the run. It never
raises: every failure goes to the `on_error` hook. It also remembers, for the driver's backoff, what went
wrong since the driver last asked (`take_trouble`: acks refused, or answered with something it cannot act
on) and which events this run settled (`settled`: the kernel confirmed the ack, or answered that the event
is gone), so an acked event that comes back shows a kernel that does not keep its acks. A single ack and a
release carry their event's trace context; a batch ack, which settles events of several traces, carries none.
Mirrors sdk-ts/src/internal/driver/settle.ts.
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Any, Callable, Dict, List, Optional, Set, Tuple

from ._trace_context import trace_call
from .errors import CapHttpError, CapSdkError

#: The most items one batch ack may carry (CAP-BATCH).
MAX_BATCH = 100
#: How many settled ids to remember: more than a batch (at most 50) several times over.
SETTLED_IDS = 1000


def _gone(err: Exception) -> bool:
    """The kernel says the event is no longer this driver's to ack: settled as far as the driver goes."""
    return isinstance(err, CapHttpError) and err.code in ("event_not_found", "lease_lost")


class Settler:
    def __init__(self, client: Any, features: Set[str], emit: Callable[[str, Any], None], on_released: Callable[[], None]) -> None:
        self.client = client
        self.features = features  # the driver's live set: learned from /info, pruned on 404s
        self.emit = emit
        self.on_released = on_released
        self.pending: List[Dict[str, Any]] = []
        self._settled: "OrderedDict[str, None]" = OrderedDict()
        self._failures = 0
        self._trouble: Optional[Tuple[str, float]] = None  # (reason, longest Retry-After)

    def settled(self, event_id: str) -> bool:
        """Whether this run settled event `event_id` (the kernel confirmed its ack, or said it is gone)."""
        return event_id in self._settled

    def take_trouble(self) -> Optional[Tuple[str, float]]:
        """What went wrong settling since the last call, as (reason, Retry-After seconds), then forgets it."""
        trouble, failures = self._trouble, self._failures
        self._trouble, self._failures = None, 0
        if trouble is not None and failures > 1:
            trouble = (f"{failures} acks failed, the first: {trouble[0]}", trouble[1])
        return trouble

    def _remember(self, event_id: str) -> None:
        self._settled.pop(event_id, None)
        self._settled[event_id] = None
        if len(self._settled) > SETTLED_IDS:
            self._settled.popitem(last=False)

    def _acked(self, event: Dict[str, Any], result: Dict[str, Any], duplicate: bool) -> None:
        self._remember(event["id"])
        self.emit("on_ack", {"event": event, "result": result, "duplicate": duplicate})

    def _failed(self, err: Exception, event: Dict[str, Any]) -> None:
        """An ack that did not go through: reported, and counted as trouble unless the event is gone."""
        if _gone(err):
            self._remember(event["id"])
        else:
            self._failures += 1
            retry_after = err.retry_after if isinstance(err, CapHttpError) and err.retry_after is not None else 0.0
            reason = self._trouble[0] if self._trouble else f"ack of {event['id']} failed: {err}"
            self._trouble = (reason, max(self._trouble[1] if self._trouble else 0.0, retry_after))
        self.emit("on_error", {"stage": "ack", "error": err, "event": event})

    def ack(self, event: Dict[str, Any], result: Dict[str, Any], duplicate: bool, trace: Optional[Dict[str, str]] = None) -> None:
        """Ack `event` (now, or with the next flush where the kernel offers `batch-ack`); `trace`: the
        event's trace headers, sent when the ack goes out alone."""
        if "batch-ack" not in self.features:
            self._ack_one(event, result, duplicate, trace)
            return
        self.pending.append({"event": event, "result": result, "duplicate": duplicate, "trace": trace})
        if len(self.pending) >= MAX_BATCH:
            self.flush()

    def release(self, event: Dict[str, Any], delay_seconds: int, reason: str, trace: Optional[Dict[str, str]] = None) -> None:
        """Hand `event` back, ready again in `delay_seconds`; nothing where the kernel cannot release."""
        if "release" not in self.features:
            return
        try:
            self.client.release(event["id"], event["attempts"], delay_seconds=delay_seconds, reason=reason, **trace_call(trace))
        except (CapHttpError, CapSdkError) as err:
            self.emit("on_error", {"stage": "release", "error": err, "event": event})
            return
        self.on_released()
        self.emit("on_release", {"event": event, "delay_seconds": delay_seconds, "reason": reason})

    def flush(self) -> None:
        """Send every gathered ack now."""
        pending, self.pending = self.pending, []
        if len(pending) == 1:
            self._ack_one(pending[0]["event"], pending[0]["result"], pending[0]["duplicate"], pending[0]["trace"])
        elif pending:
            self._ack_batch(pending)

    def _ack_one(self, event: Dict[str, Any], result: Dict[str, Any], duplicate: bool, trace: Optional[Dict[str, str]] = None) -> None:
        try:
            self.client.ack(event["id"], result, **trace_call(trace))
        except (CapHttpError, CapSdkError) as err:
            self._failed(err, event)
            return
        self._acked(event, result, duplicate)

    def _ack_batch(self, pending: List[Dict[str, Any]]) -> None:
        try:
            answer = self.client.ack_many([{"id": p["event"]["id"], "result": p["result"]} for p in pending])
        except (CapHttpError, CapSdkError) as err:
            if isinstance(err, CapHttpError) and err.status in (404, 405):
                self.features.discard("batch-ack")  # advertised but not routed: one by one from now on
                for p in pending:
                    self._ack_one(p["event"], p["result"], p["duplicate"], p["trace"])
                return
            for p in pending:
                self._failed(err, p["event"])
            return
        for p, item in zip(pending, answer["results"]):
            if item["ok"]:
                self._acked(p["event"], p["result"], p["duplicate"])
                continue
            code = item.get("code") if isinstance(item.get("code"), str) else None
            error = CapHttpError(status=200, operation="POST /events/ack", code=code, message=f"item {p['event']['id']} not settled")
            self._failed(error, p["event"])
