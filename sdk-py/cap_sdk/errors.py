"""The SDK's error types.

`CapHttpError` is a kernel's answer: a non-2xx status with a registry `code`. `CapSdkError` is a
local failure: a timeout, no answer at all, an answer the SDK cannot read, or a driver that had to
stop. Keep them apart when handling errors: an `http_error.code` comes from `spec/errors.yaml`, an
`sdk_error.code` from `SDK_ERROR_CODES` below. `Cancelled` is neither: it tells a handler that the
delivery it works on was cancelled (feature `cancel`), so it is what a handler lets propagate, not a
failure. Never put a token or a request body into a message.
"""
from __future__ import annotations

from typing import Any, Dict, Mapping, Optional

#: The registry of local failures: each `CapSdkError` code, declared once, with what it means. The
#: README's table is tested against it; codes are never renamed or reused (the TypeScript SDK's list).
SDK_ERROR_CODES: Mapping[str, str] = {
    "timeout": "The request took longer than its timeout.",
    "aborted": "The caller cancelled the call (the driver is stopping).",
    "network": "No HTTP answer: connection refused or reset, DNS failure, a response cut off.",
    "invalid_response": "An answer the SDK cannot read (not JSON, or missing what the SDK needs to act).",
    "not_posted": "A 2xx answer to a post that says nothing was posted (production kernel skipped/refused).",
    "lease_lost": "The driver lost the lease of the event a handler was working on.",
    "auth_stopped": "The driver stopped after three consecutive 401/403 answers to its polls.",
}


class CapError(Exception):
    """Base class of `CapHttpError` and `CapSdkError`."""


class CapHttpError(CapError):
    """A kernel answered with a non-2xx status.

    Attributes: `status` (HTTP status), `code` (the registry code, or `http_<status>` when the
    kernel sent none: the production kernel sometimes does not), `message`, `details` (dict or
    None), `request_id` (the `x-request-id` header: quote it when reporting a kernel fault),
    `retry_after` (seconds from `Retry-After`, or None), `operation` (`METHOD /path`) and `body`
    (the error body as sent: parsed JSON, or text).
    """

    def __init__(
        self,
        status: int,
        operation: str,
        code: Optional[str] = None,
        message: Optional[str] = None,
        details: Optional[Dict[str, Any]] = None,
        request_id: Optional[str] = None,
        retry_after: Optional[float] = None,
        body: Any = None,
    ) -> None:
        self.status = status
        self.code = code or f"http_{status}"
        self.message = message or "no message"
        self.details = details
        self.request_id = request_id
        self.retry_after = retry_after
        self.operation = operation
        self.body = body
        super().__init__(f"{operation} failed with {status} {self.code}: {self.message}")


class CapSdkError(CapError):
    """A local failure: no usable answer from the kernel, or a driver that had to stop.

    Attributes: `code` (a key of `SDK_ERROR_CODES`), `message`, `details` (dict or None) and
    `__cause__` (the underlying exception, when there is one).
    """

    def __init__(self, code: str, message: str, details: Optional[Dict[str, Any]] = None) -> None:
        if code not in SDK_ERROR_CODES:
            raise ValueError(f"unknown CapSdkError code {code!r}")
        self.code = code
        self.message = message
        self.details = details
        super().__init__(message)


class Cancelled(CapError):
    """The delivery a handler is working on was cancelled (feature `cancel`): by a human, an operator, the
    agent itself, or the kernel's double-texting policy (reason `superseded`).

    `run_driver` sets it as the reason of `ctx.cancelled` and `ctx.reply` raises it once the driver has
    learned of the cancel. A handler may let it propagate: after a cancel, whatever the handler returns
    or raises, the driver acks the event `cancelled` and counts no failure.
    Attributes: `reason` (the canceller's reason: `requested` when none was given), `event_id`,
    `requested_at` (ISO timestamp, or None when the driver learned of it from a renew).
    """

    def __init__(self, reason: str, event_id: str, requested_at: Optional[str] = None) -> None:
        self.reason = reason
        self.event_id = event_id
        self.requested_at = requested_at
        super().__init__(f"event {event_id} was cancelled: {reason}")
