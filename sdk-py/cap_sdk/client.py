"""`CapClient`: one method per CAP route, on the standard library only.

Strict writer (bodies are the spec's shapes), lenient reader (production-kernel answers are
normalised, see `_lenient.py`), typed errors (`CapHttpError` for a kernel's answer, `CapSdkError`
for a local failure), retries only where a call is idempotent, an `Idempotency-Key` on every POST and
a `User-Agent` naming the SDK (the production kernel sits behind a CDN that blocks urllib's default).
It never logs and holds no state between calls; one client may be shared by threads.
Mirrors sdk-ts/src/client.ts.
"""
from __future__ import annotations

import json
import platform
import random as _random
import uuid
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Union
from urllib.parse import quote, urlencode

from . import _lenient as read
from ._fingerprint import fnv1a
from ._generated.models import (
    AckResult,
    BatchAckItem,
    BatchAckResponse,
    Cancellation,
    CancelResponse,
    DecisionRequest,
    DecisionResponse,
    EventList,
    Info,
    MemoryEnvelope,
    PodMessageList,
    PutMemoryRequest,
    PutMemoryResponse,
    ReleaseResponse,
    RenewResponse,
    SyncMemoryRequest,
    SyncMemoryResponse,
)
from ._trace_context import current_headers, trace_headers
from ._transport import Answer, RetryPolicy, execute
from ._version import __version__
from .stop import StopSignal

BASE = "/api/agents/runtime"
USER_AGENT = f"commonly-cap-python/{__version__} (cap_sdk; python {platform.python_version()})"

def _key() -> str:
    return str(uuid.uuid4())


class CapClient:
    """A client for one agent's CAP routes on one kernel.

    `base_url` is the kernel's origin (`http://127.0.0.1:7070`; a trailing `/api/agents/runtime` is
    tolerated), `token` the agent's runtime token (`cm_agent_…`). `timeout` is seconds per request (a
    poll adds its `wait_seconds`); `retry` a `RetryPolicy`, or False for none; `user_agent` is
    appended to the SDK's `User-Agent`. Every method also takes `cancel` (a `StopSignal` that
    interrupts the call: `CapSdkError` `aborted`), `timeout` and `retries` for that call only, and
    `trace_context` (`{traceparent, tracestate?}`, the shape of an event's `traceContext`): the W3C trace
    context the request carries (feature `trace-context`). Without it, a call made inside a `run_driver`
    handler carries the turn's context (`HandlerContext.trace_context`), and any other call none.
    `sleep(seconds, cancel)` and `random()` (jitter in [0, 1)) are injectable for tests.
    """

    def __init__(
        self,
        base_url: str,
        token: str,
        *,
        timeout: float = 30.0,
        retry: Union[RetryPolicy, bool, None] = None,
        user_agent: Optional[str] = None,
        sleep: Optional[Callable[[float, Optional[StopSignal]], None]] = None,
        random: Optional[Callable[[], float]] = None,
    ) -> None:
        if not base_url:
            raise ValueError("CapClient: base_url is required")
        if not token:
            raise ValueError("CapClient: token is required")
        base = base_url.rstrip("/")
        if base.endswith(BASE):
            base = base[: -len(BASE)]
        #: The kernel origin requests go to.
        self.base_url = base
        #: A short, non-reversible fingerprint of the token (FNV-1a, 32 bits): safe to log, stable per agent.
        self.fingerprint = f"{fnv1a(token):08x}"
        self._token = token
        self._timeout = timeout
        self._policy = RetryPolicy(retries=0) if retry is False else (retry if isinstance(retry, RetryPolicy) else RetryPolicy())
        self._user_agent = USER_AGENT + (f" {user_agent}" if user_agent else "")
        self._sleep = sleep
        self._random = random or _random.random

    def __repr__(self) -> str:
        return f"CapClient({self.base_url!r}, token=<{self.fingerprint}>)"

    # ---- events -----------------------------------------------------------------------------------
    def poll(
        self,
        limit: Optional[int] = None,
        wait_seconds: Optional[int] = None,
        poll_id: Optional[str] = None,
        **call: Any,
    ) -> EventList:
        """`GET /events`: claim up to `limit` ready events; with `wait_seconds`, long-poll for one.

        `poll_id` (feature `poll-replay`): the same id from the same agent, while its deliveries are
        held, returns the same deliveries and claims nothing new, so a poll whose answer was lost can
        be asked again without leaving events leased to nobody.
        """
        query = {"limit": limit, "waitSeconds": wait_seconds, "pollId": poll_id}
        extra = float(wait_seconds or 0)
        answer = self._call("GET /events", "GET", "/events", query=query, idempotent=True, extra_timeout=extra, **call)
        return read.read_event_list("GET /events", answer.data)  # type: ignore[return-value]

    def ack(self, event_id: str, result: Optional[AckResult] = None, **call: Any) -> Dict[str, Any]:
        """`POST /events/{id}/ack`: mark an event handled, optionally saying how. Idempotent (retried)."""
        body = {"result": result} if result else {}
        op = "POST /events/{id}/ack"
        answer = self._call(op, "POST", f"/events/{_seg(event_id)}/ack", body=body, idempotent=True, **call)
        return read.read_ack(op, answer.data)

    def ack_many(self, acks: Sequence[BatchAckItem], **call: Any) -> BatchAckResponse:
        """`POST /events/ack` (feature `batch-ack`): settle 1–100 acks in one request, each as a single
        ack would; answers `{results: [{id, ok, code?}]}` in request order. Idempotent (retried)."""
        items = [{"id": a["id"], **({"result": a["result"]} if a.get("result") else {})} for a in acks]
        op = "POST /events/ack"
        answer = self._call(op, "POST", "/events/ack", body={"acks": items}, idempotent=True, **call)
        return read.read_ack_many(op, answer.data, [a["id"] for a in items])  # type: ignore[return-value]

    def renew(self, event_id: str, attempts: int, **call: Any) -> RenewResponse:
        """`POST /events/{id}/renew`: extend the lease of delivery `attempts`; 409 `lease_lost` when it is gone."""
        op = "POST /events/{id}/renew"
        answer = self._call(op, "POST", f"/events/{_seg(event_id)}/renew", body={"attempts": attempts}, idempotent=True, **call)
        return read.read_renew(op, answer.data)  # type: ignore[return-value]

    def release(
        self,
        event_id: str,
        attempts: int,
        delay_seconds: Optional[int] = None,
        reason: Optional[str] = None,
        **call: Any,
    ) -> ReleaseResponse:
        """`POST /events/{id}/release` (feature `release`): end delivery `attempts` now; the event is
        ready again after `delay_seconds` (0–900) with `attempts + 1`, or `failed` if that was its last attempt
        (`status` says which). Fenced like renew (409 `lease_lost`)."""
        body: Dict[str, Any] = {"attempts": attempts}
        if delay_seconds is not None:
            body["delaySeconds"] = max(0, min(900, int(delay_seconds)))
        if reason:
            body["reason"] = reason[:500]
        answer = self._call("POST /events/{id}/release", "POST", f"/events/{_seg(event_id)}/release", body=body, idempotent=True, **call)
        return read.read_release(answer.data)  # type: ignore[return-value]

    def cancel_event(self, event_id: str, reason: Optional[str] = None, **call: Any) -> CancelResponse:
        """`POST /events/{id}/cancel` (feature `cancel`): cancel one of this agent's own events. A pending
        event or a held delivery becomes `cancelled` at once (never delivered again, not a failure); an event
        already `acked`, `failed` or `cancelled` is left as it is. Answers `{ok, status, changed}`: `status`
        the event's state after the call, `changed` true exactly when this call cancelled it. `reason` (at
        most 500 characters; the kernel says `requested` when none is given) is kept and shown to operators.
        Idempotent (retried); 404 `event_not_found` for an unknown or another identity's event."""
        op = "POST /events/{id}/cancel"
        body = {"reason": reason} if reason is not None else {}
        answer = self._call(op, "POST", f"/events/{_seg(event_id)}/cancel", body=body, idempotent=True, **call)
        return read.read_cancel(op, answer.data)  # type: ignore[return-value]

    def watch_cancellation(self, event_id: str, attempts: int, wait_seconds: Optional[int] = None, **call: Any) -> Cancellation:
        """`GET /events/{id}/cancellation` (feature `cancel`): a long-poll on delivery `attempts` of an event
        that claims and changes nothing. Answers `{cancelRequested: True, reason, requestedAt}` at once when
        that delivery was cancelled; while it is held, waits up to `wait_seconds` (0–25) for a cancel, then
        answers `{cancelRequested: False, leaseExpiresAt}`. 409 `lease_lost` when the delivery is neither
        held nor the cancelled one; 429 `too_many_long_polls` beyond the token's watch budget. `run_driver`
        keeps one running per handler; call it yourself only when driving events by hand."""
        op = "GET /events/{id}/cancellation"
        query = {"attempts": attempts, "waitSeconds": wait_seconds}
        extra = float(wait_seconds or 0)
        path = f"/events/{_seg(event_id)}/cancellation"
        answer = self._call(op, "GET", path, query=query, idempotent=True, extra_timeout=extra, **call)
        return read.read_cancellation(op, answer.data)  # type: ignore[return-value]

    # ---- messages ---------------------------------------------------------------------------------
    def post_message(
        self,
        pod_id: str,
        content: str,
        reply_to_message_id: Optional[str] = None,
        metadata: Optional[Dict[str, Any]] = None,
        idempotency_key: Optional[str] = None,
        **call: Any,
    ) -> Dict[str, Any]:
        """`POST /pods/{podId}/messages`. The `Idempotency-Key` (default a fresh UUID per call) makes the
        call's own retries safe; pass a stable one to make a redelivered event's reply safe too. Returns
        `{id, createdAt, replayed}`; `replayed` when the kernel answered an earlier request with that key."""
        body: Dict[str, Any] = {"content": content}
        if reply_to_message_id:
            body["replyToMessageId"] = reply_to_message_id
        if metadata is not None:
            body["metadata"] = metadata
        op = "POST /pods/{podId}/messages"
        answer = self._call(op, "POST", f"/pods/{_seg(pod_id)}/messages", body=body, idempotent=True, key=idempotency_key, **call)
        posted = read.read_posted(op, answer.data)
        return {**posted, "replayed": answer.headers.get("idempotent-replayed") == "true"}

    def list_messages(self, pod_id: str, limit: Optional[int] = None, before: Optional[str] = None, **call: Any) -> PodMessageList:
        """`GET /pods/{podId}/messages` (feature `message-read`): recent messages, newest first, each flagged `self`."""
        op = "GET /pods/{podId}/messages"
        answer = self._call(op, "GET", f"/pods/{_seg(pod_id)}/messages", query={"limit": limit, "before": before}, idempotent=True, **call)
        return read.read_messages(op, answer.data)  # type: ignore[return-value]

    # ---- memory -----------------------------------------------------------------------------------
    def get_memory(self, **call: Any) -> MemoryEnvelope:
        """`GET /memory`: the agent's memory envelope (empty for a fresh agent)."""
        answer = self._call("GET /memory", "GET", "/memory", idempotent=True, **call)
        return read.read_memory("GET /memory", answer.data)  # type: ignore[return-value]

    def put_memory(self, body: PutMemoryRequest, **call: Any) -> PutMemoryResponse:
        """`PUT /memory`: merge single sections, replace arrays."""
        answer = self._call("PUT /memory", "PUT", "/memory", body=dict(body), idempotent=True, **call)
        return read.read_write(answer.data)  # type: ignore[return-value]

    def sync_memory(self, body: SyncMemoryRequest, **call: Any) -> SyncMemoryResponse:
        """`POST /memory/sync`: promote sections (`full` or `patch`); deduped within a UTC day, so retried."""
        answer = self._call("POST /memory/sync", "POST", "/memory/sync", body=dict(body), idempotent=True, **call)
        return read.read_write(answer.data)  # type: ignore[return-value]

    # ---- optional routes --------------------------------------------------------------------------
    def info(self, **call: Any) -> Info:
        """`GET /info`: protocol version, timing and features. Optional route: 404 on kernels without it."""
        answer = self._call("GET /info", "GET", "/info", idempotent=True, **call)
        return read.read_info("GET /info", answer.data)  # type: ignore[return-value]

    def create_decision(self, body: DecisionRequest, **call: Any) -> DecisionResponse:
        """`POST /decisions` (feature `decisions`): ask the pod's humans to choose. Not retried: it is not idempotent."""
        op = "POST /decisions"
        answer = self._call(op, "POST", "/decisions", body=dict(body), idempotent=False, **call)
        return read.read_decision(op, answer.data)  # type: ignore[return-value]

    # ---- plumbing ---------------------------------------------------------------------------------
    def _call(
        self,
        operation: str,
        method: str,
        path: str,
        *,
        idempotent: bool,
        query: Optional[Dict[str, Any]] = None,
        body: Optional[Dict[str, Any]] = None,
        key: Optional[str] = None,
        extra_timeout: float = 0.0,
        cancel: Optional[StopSignal] = None,
        timeout: Optional[float] = None,
        retries: Optional[int] = None,
        trace_context: Optional[Mapping[str, Any]] = None,
    ) -> Answer:
        url = f"{self.base_url}{BASE}{path}"
        if query:
            pairs = [(k, str(v)) for k, v in query.items() if v is not None]
            if pairs:
                url += "?" + urlencode(pairs)
        headers = {
            "Authorization": f"Bearer {self._token}",
            "User-Agent": self._user_agent,
            "Accept": "application/json",
        }
        data: Optional[bytes] = None
        if body is not None:
            data = json.dumps(body, separators=(",", ":")).encode("utf-8")
            headers["Content-Type"] = "application/json"
        # Explicit (the driver's own requests for an event), else the handler's turn when called from one.
        headers.update(trace_headers(trace_context) if trace_context is not None else (current_headers() or {}))
        if method == "POST":
            # One key for the call and all of its retries: a retried post is recognised, not repeated.
            headers["Idempotency-Key"] = key or _key()
        return execute(
            operation,
            method,
            url,
            headers,
            data,
            idempotent=idempotent,
            timeout=(self._timeout if timeout is None else timeout) + extra_timeout,
            policy=self._policy,
            retries=retries,
            cancel=cancel,
            sleep=self._sleep,
            random=self._random,
        )


def _seg(value: str) -> str:
    return quote(str(value), safe="")


__all__: List[str] = ["CapClient", "RetryPolicy", "USER_AGENT"]
