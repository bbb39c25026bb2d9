"""One HTTP call (http.client, the layer urllib itself uses) with a timeout, cancellation through a
`StopSignal`, and retries with exponential backoff and jitter on network errors, timeouts, 429 and
502/503/504 (honouring `Retry-After`, so a 503 `store_unavailable` is waited out) — only when the caller
says the call is idempotent. Every failure becomes `CapHttpError` or `CapSdkError`.

Why http.client rather than `urllib.request.urlopen`: urlopen gives no handle on the socket until the
headers arrive, so a long-poll could not be interrupted by a stop; here the socket is shut from the stop
callback. It must never retry a call that is not idempotent, and never wait longer than `max_delay`.
"""
from __future__ import annotations

import email.utils
import http.client
import json
import random as _random
import socket
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, Optional
from urllib.parse import urlsplit

from ._lenient import read_error_body
from .errors import CapHttpError, CapSdkError
from .stop import StopSignal

RETRY_STATUS = frozenset({429, 502, 503, 504})


@dataclass
class RetryPolicy:
    """How a client retries idempotent calls: `retries` extra attempts, `base_delay` seconds doubled
    on each further one, no single wait above `max_delay` (a longer `Retry-After` is returned as the error)."""

    retries: int = 2
    base_delay: float = 0.5
    max_delay: float = 30.0


@dataclass
class Answer:
    status: int
    headers: Dict[str, str]
    data: Any


def parse_retry_after(value: Optional[str], now: Optional[float] = None) -> Optional[float]:
    """`Retry-After` as seconds: an integer, or an HTTP date relative to now."""
    if value is None or not value.strip():
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        at = email.utils.parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, float(int(at - (time.time() if now is None else now) + 0.999)))


def _parse(raw: bytes) -> Any:
    text = raw.decode("utf-8", errors="replace")
    if not text.strip():
        return None
    return json.loads(text)


def _once(
    operation: str,
    method: str,
    url: str,
    headers: Dict[str, str],
    body: Optional[bytes],
    timeout: float,
    cancel: Optional[StopSignal],
) -> Answer:
    if cancel is not None and cancel.is_set():
        raise CapSdkError("aborted", f"{operation} aborted")
    parts = urlsplit(url)
    conn_type = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    conn = conn_type(parts.hostname or "", parts.port, timeout=timeout)
    path = parts.path + (f"?{parts.query}" if parts.query else "")

    def interrupt() -> None:
        sock = conn.sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    remove = cancel.on_set(interrupt) if cancel is not None else (lambda: None)
    try:
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        raw = response.read()
        answer_headers = {k.lower(): v for k, v in response.getheaders()}
        status = response.status
    except socket.timeout as err:
        raise CapSdkError("timeout", f"{operation} timed out after {timeout:g} s") from err
    except (OSError, http.client.HTTPException) as err:
        if cancel is not None and cancel.is_set():
            raise CapSdkError("aborted", f"{operation} aborted") from err
        raise CapSdkError("network", f"{operation} got no answer: {err or type(err).__name__}") from err
    finally:
        remove()
        conn.close()
    if cancel is not None and cancel.is_set() and not 200 <= status < 300:
        raise CapSdkError("aborted", f"{operation} aborted")
    if not 200 <= status < 300:
        try:
            error_body: Any = _parse(raw)
        except ValueError:
            error_body = raw.decode("utf-8", errors="replace")
        parsed = read_error_body(error_body)
        raise CapHttpError(
            status=status,
            operation=operation,
            code=parsed.get("code"),
            message=parsed.get("message") or response.reason or None,
            details=parsed.get("details"),
            request_id=answer_headers.get("x-request-id"),
            retry_after=parse_retry_after(answer_headers.get("retry-after")),
            body=error_body,
        )
    try:
        data = _parse(raw)
    except ValueError as err:
        raise CapSdkError("invalid_response", f"{operation} answered a body that is not JSON") from err
    return Answer(status, answer_headers, data)


def _retryable(err: Exception) -> bool:
    if isinstance(err, CapHttpError):
        return err.status in RETRY_STATUS
    return isinstance(err, CapSdkError) and err.code in ("network", "timeout")


def execute(
    operation: str,
    method: str,
    url: str,
    headers: Dict[str, str],
    body: Optional[bytes],
    *,
    idempotent: bool,
    timeout: float,
    policy: RetryPolicy,
    retries: Optional[int] = None,
    cancel: Optional[StopSignal] = None,
    sleep: Optional[Callable[[float, Optional[StopSignal]], None]] = None,
    random: Callable[[], float] = _random.random,
) -> Answer:
    """Runs one call, retrying as `policy` allows when `idempotent`."""
    allowed = (policy.retries if retries is None else retries) if idempotent else 0
    n = 0
    while True:
        try:
            return _once(operation, method, url, headers, body, timeout, cancel)
        except (CapHttpError, CapSdkError) as err:
            if n >= allowed or not _retryable(err) or (cancel is not None and cancel.is_set()):
                raise
            delay = min(policy.max_delay, policy.base_delay * 2**n) * (0.5 + random() * 0.5)
            retry_after = err.retry_after if isinstance(err, CapHttpError) else None
            if retry_after is not None:
                if retry_after > policy.max_delay:
                    raise
                delay = max(delay, retry_after)
            (sleep or _sleep)(delay, cancel)
            if cancel is not None and cancel.is_set():
                raise CapSdkError("aborted", f"{operation} aborted") from err
            n += 1


def _sleep(seconds: float, cancel: Optional[StopSignal]) -> None:
    if cancel is not None:
        cancel.wait(seconds)
    else:
        time.sleep(seconds)

