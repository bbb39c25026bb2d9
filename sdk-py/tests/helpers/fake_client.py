"""An in-process stand-in for CapClient, for the driver behaviours the reference kernel on this branch
cannot show yet (the `release`, `batch-ack` and `poll-replay` features are being added to it) and for
failure timings a real kernel will not produce on demand. It records every call; polls return the
scripted batches, then wait (interruptibly) and return nothing. It keeps each delivered event's lease
(polls, renews and watches that end without a cancel extend it, as the kernel's do) and notes in `lapsed`
the events whose lease ended before they were renewed or acked."""
from __future__ import annotations

import threading
import time
from datetime import datetime, timezone
from typing import Any, Dict, List, Optional

from cap_sdk import CapHttpError, CapSdkError


def event(event_id: str, event_type: str = "task.assigned", attempts: int = 1, pod: str = "pod_1") -> Dict[str, Any]:
    return {"id": event_id, "type": event_type, "podId": pod, "payload": {"messageId": f"m-{event_id}"}, "attempts": attempts, "createdAt": "t"}


class FakeClient:
    fingerprint = "0badc0de"

    def __init__(self, features: Optional[List[str]], batches: Optional[List[Any]] = None, lease_seconds: int = 30) -> None:
        self.features = features
        self.batches = list(batches or [])
        self.lease_seconds = lease_seconds
        self.calls: List[tuple] = []
        self.lock = threading.Lock()
        self.ack_many_error: Optional[Exception] = None
        #: The production kernel ignores `waitSeconds` and answers an empty poll at once.
        self.ignores_wait = False
        #: Feature `cancel`: event id → reason, answered by watches and by renews (409 details.cancelled).
        self.cancels: Dict[str, str] = {}
        self.cancelled = threading.Condition(self.lock)
        #: When set, every watch raises it instead of waiting.
        self.watch_error: Optional[Exception] = None
        #: Event id → when its lease ends (time.time()), set by polls, renews and watches that renew.
        self.lease_ends: Dict[str, float] = {}
        #: Ids of events whose lease ended before a renewal or their ack: a real kernel would redeliver them.
        self.lapsed: List[str] = []
        #: "renews" (CAP-CANCEL-9); "stale": held as long but renews nothing, answering the lease end as it
        #: is (a kernel whose watch does not renew); "hangs": held the whole wait, renewing nothing.
        self.watch_mode = "renews"

    def _check_lease(self, event_id: str) -> None:
        ends = self.lease_ends.get(event_id)
        if ends is not None and ends < time.time():
            self.lapsed.append(event_id)

    def extend(self, event_id: str) -> str:
        """Renew the lease of `event_id` for a whole lease; its new `leaseExpiresAt`."""
        self._check_lease(event_id)
        ends = self.lease_ends[event_id] = time.time() + self.lease_seconds
        return datetime.fromtimestamp(ends, timezone.utc).isoformat().replace("+00:00", "Z")

    def record(self, *call: Any) -> None:
        with self.lock:
            self.calls.append(call)

    def named(self, name: str) -> List[tuple]:
        with self.lock:
            return [c for c in self.calls if c[0] == name]

    def info(self, **call: Any) -> Dict[str, Any]:
        self.record("info")
        if self.features is None:  # the production kernel: no /info route
            raise not_found("GET /info")
        return {"protocol": "cap", "version": "1", "leaseSeconds": self.lease_seconds, "maxAttempts": 5, "maxLimit": 50,
                "maxWaitSeconds": 25, "maxMessageBytes": 65536, "features": self.features}

    def poll(self, limit=None, wait_seconds=None, poll_id=None, cancel=None, **call: Any) -> Dict[str, Any]:  # noqa: ANN001
        self.record("poll", poll_id)
        if self.batches:
            batch = self.batches.pop(0)
            if isinstance(batch, Exception):
                raise batch
            with self.lock:
                # Leased events carry their lease's end, as the kernel's do (unless the test set one).
                batch = [e if "leaseExpiresAt" in e else dict(e, leaseExpiresAt=self.extend(e["id"])) for e in batch]
            return {"events": batch}
        if cancel is not None and not self.ignores_wait:
            cancel.wait(wait_seconds or 0.05)
        return {"events": []}

    def ack(self, event_id: str, result=None, **call: Any) -> Dict[str, Any]:  # noqa: ANN001
        self.record("ack", event_id, result)
        with self.lock:
            self._check_lease(event_id)
        return {"ok": True}

    def ack_many(self, acks, **call: Any) -> Dict[str, Any]:  # noqa: ANN001
        self.record("ack_many", [a["id"] for a in acks])
        with self.lock:
            for a in acks:
                self._check_lease(a["id"])
        if self.ack_many_error is not None:
            raise self.ack_many_error
        return {"results": [{"id": a["id"], "ok": True} for a in acks]}

    def renew(self, event_id: str, attempts: int, **call: Any) -> Dict[str, Any]:
        self.record("renew", event_id, attempts)
        with self.lock:
            reason = self.cancels.get(event_id)
        if reason is not None:
            raise CapHttpError(409, "POST /events/{id}/renew", code="lease_lost", message="cancelled",
                               details={"cancelled": True, "reason": reason})
        with self.lock:
            return {"ok": True, "leaseExpiresAt": self.extend(event_id)}

    def cancel(self, event_id: str, reason: str = "requested") -> None:
        """What a human's cancel does to the kernel: every watch and renew of the event says so from now on."""
        with self.cancelled:
            self.cancels[event_id] = reason
            self.cancelled.notify_all()

    def watch_cancellation(self, event_id: str, attempts: int, wait_seconds=None, cancel=None, **call: Any) -> Dict[str, Any]:  # noqa: ANN001
        """As the kernel's watch: held until a cancel, `wait_seconds`, or a third of the lease is left, when
        it ends without a cancel it renews the lease (CAP-CANCEL-9)."""
        self.record("watch", event_id, attempts, wait_seconds)
        if self.watch_error is not None:
            raise self.watch_error
        deadline = time.monotonic() + (0 if self.ignores_wait else (wait_seconds or 0))
        with self.cancelled:
            ends = self.lease_ends.get(event_id)
            if ends is not None and self.watch_mode != "hangs":
                deadline = min(deadline, time.monotonic() + ends - time.time() - self.lease_seconds / 3)
            while event_id not in self.cancels:
                left = deadline - time.monotonic()
                if left <= 0 or (cancel is not None and cancel.is_set()):
                    break
                self.cancelled.wait(min(left, 0.02))  # a short step: the driver's cancel must end the wait
            reason = self.cancels.get(event_id)
            if cancel is not None and cancel.is_set():
                raise CapSdkError("aborted", "GET /events/{id}/cancellation aborted")
            if reason is not None:
                return {"cancelRequested": True, "reason": reason, "requestedAt": "t"}
            if self.watch_mode != "renews":
                ends = self.lease_ends.get(event_id, time.time())
                return {"cancelRequested": False, "leaseExpiresAt": datetime.fromtimestamp(ends, timezone.utc).isoformat()}
            self.calls.append(("watch-renewed", event_id, attempts))
            return {"cancelRequested": False, "leaseExpiresAt": self.extend(event_id)}

    def release(self, event_id: str, attempts: int, delay_seconds=None, reason=None, **call: Any) -> Dict[str, Any]:  # noqa: ANN001
        self.record("release", event_id, attempts, delay_seconds)
        return {"ok": True}

    def post_message(self, pod_id: str, content: str, **options: Any) -> Dict[str, Any]:
        cancel = options.get("cancel")
        if cancel is not None and cancel.is_set():
            raise CapSdkError("aborted", "POST /pods/{podId}/messages aborted")
        self.record("post", pod_id, content, options.get("idempotency_key"))
        return {"id": f"msg-{len(self.calls)}", "createdAt": "t", "replayed": False}


def not_found(operation: str) -> CapHttpError:
    return CapHttpError(404, operation, code="not_found", message="no such route")
