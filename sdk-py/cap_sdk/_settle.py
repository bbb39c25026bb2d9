"""How a driver settles events with the kernel: acks, one by one or — where the kernel advertises
`batch-ack` — gathered and sent as one `POST /events/ack` when the driver is about to wait (before a
handler runs, at the end of a batch), and releases where it advertises `release`. An item a batch
answers `{ok: false, code}` is reported as that code would be on a single ack. A batch route that is
advertised but missing (404/405) makes it fall back to single acks for the rest of the run. It never
raises: every failure goes to the `on_error` hook. Mirrors sdk-ts/src/internal/settle.ts.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Set

from .errors import CapHttpError, CapSdkError

#: The most items one batch ack may carry (CAP-BATCH).
MAX_BATCH = 100


class Settler:
    def __init__(self, client: Any, features: Set[str], emit: Callable[[str, Any], None], on_released: Callable[[], None]) -> None:
        self.client = client
        self.features = features  # the driver's live set: learned from /info, pruned on 404s
        self.emit = emit
        self.on_released = on_released
        self.pending: List[Dict[str, Any]] = []

    def ack(self, event: Dict[str, Any], result: Dict[str, Any], duplicate: bool) -> None:
        if "batch-ack" not in self.features:
            self._ack_one(event, result, duplicate)
            return
        self.pending.append({"event": event, "result": result, "duplicate": duplicate})
        if len(self.pending) >= MAX_BATCH:
            self.flush()

    def release(self, event: Dict[str, Any], delay_seconds: int, reason: str) -> None:
        """Hand `event` back, ready again in `delay_seconds`; nothing where the kernel cannot release."""
        if "release" not in self.features:
            return
        try:
            self.client.release(event["id"], event["attempts"], delay_seconds=delay_seconds, reason=reason)
        except (CapHttpError, CapSdkError) as err:
            self.emit("on_error", {"stage": "release", "error": err, "event": event})
            return
        self.on_released()
        self.emit("on_release", {"event": event, "delay_seconds": delay_seconds, "reason": reason})

    def flush(self) -> None:
        """Send every gathered ack now."""
        pending, self.pending = self.pending, []
        if len(pending) == 1:
            self._ack_one(pending[0]["event"], pending[0]["result"], pending[0]["duplicate"])
        elif pending:
            self._ack_batch(pending)

    def _ack_one(self, event: Dict[str, Any], result: Dict[str, Any], duplicate: bool) -> None:
        try:
            self.client.ack(event["id"], result)
        except (CapHttpError, CapSdkError) as err:
            self.emit("on_error", {"stage": "ack", "error": err, "event": event})
            return
        self.emit("on_ack", {"event": event, "result": result, "duplicate": duplicate})

    def _ack_batch(self, pending: List[Dict[str, Any]]) -> None:
        try:
            answer = self.client.ack_many([{"id": p["event"]["id"], "result": p["result"]} for p in pending])
        except (CapHttpError, CapSdkError) as err:
            if isinstance(err, CapHttpError) and err.status in (404, 405):
                self.features.discard("batch-ack")  # advertised but not routed: one by one from now on
                for p in pending:
                    self._ack_one(p["event"], p["result"], p["duplicate"])
                return
            for p in pending:
                self.emit("on_error", {"stage": "ack", "error": err, "event": p["event"]})
            return
        for p, item in zip(pending, answer["results"]):
            if item["ok"]:
                self.emit("on_ack", {"event": p["event"], "result": p["result"], "duplicate": p["duplicate"]})
                continue
            code = item.get("code") if isinstance(item.get("code"), str) else None
            error = CapHttpError(status=200, operation="POST /events/ack", code=code, message=f"item {p['event']['id']} not settled")
            self.emit("on_error", {"stage": "ack", "error": error, "event": p["event"]})
