"""The lenient reader: turns what a kernel answered into the CAP shapes, accepting the production
kernel's variants (field notes): events with `_id` and no `id`, posts answered 200
`{success, message: {_id, id, createdAt}}`, acks answered `{success: true}`, errors as
`{message, code?}` or `{error}`. Unknown fields are kept (CAP answers are additive). It must never
accept an answer it cannot act on: an event without any id cannot be acked, so that is
`invalid_response`. Mirrors sdk-ts/src/internal/lenient.ts.
"""
from __future__ import annotations

import re
from typing import Any, Dict, Optional

from .errors import CapSdkError

_CODE = re.compile(r"^[a-z][a-z0-9_]*$")


def _invalid(operation: str, what: str) -> CapSdkError:
    return CapSdkError("invalid_response", f"{operation} answered {what}")


def _id_of(raw: Dict[str, Any]) -> Optional[str]:
    value = raw.get("id")
    if value is None:
        value = raw.get("_id")
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    return str(value)


def _body(operation: str, data: Any) -> Dict[str, Any]:
    if not isinstance(data, dict):
        raise _invalid(operation, "a body that is not a JSON object")
    return data


def read_event_list(operation: str, data: Any) -> Dict[str, Any]:
    events = _body(operation, data).get("events")
    if not isinstance(events, list):
        raise _invalid(operation, "no `events` array")
    out = []
    for i, raw in enumerate(events):
        if not isinstance(raw, dict):
            raise _invalid(operation, f"events[{i}] that is not an object")
        event_id = _id_of(raw)
        if event_id is None:
            raise _invalid(operation, f"events[{i}] without an id (neither `id` nor `_id`)")
        if not isinstance(raw.get("type"), str):
            raise _invalid(operation, f"events[{i}] without a string `type`")
        attempts = raw.get("attempts")
        if isinstance(attempts, str) and attempts.isdigit():
            attempts = int(attempts)
        valid_attempts = isinstance(attempts, int) and not isinstance(attempts, bool) and attempts >= 1
        pod = raw.get("podId")
        out.append(
            {
                **raw,
                "id": event_id,
                "type": raw["type"],
                "podId": "" if pod is None else str(pod),
                "payload": raw["payload"] if isinstance(raw.get("payload"), dict) else {},
                "attempts": attempts if valid_attempts else 1,
                "createdAt": raw["createdAt"] if isinstance(raw.get("createdAt"), str) else "",
            }
        )
    return {"events": out}


def read_ack(operation: str, data: Any) -> Dict[str, Any]:
    """`{ok: true}` (CAP), `{success: true}` (production) or an empty body: the ack was taken. `ok: false`
    or `success: false`, or JSON that is not an object, says nothing the driver can rely on: not acked."""
    if data is None:
        return {"ok": True}
    raw = _body(operation, data)
    if raw.get("ok") is False or raw.get("success") is False:
        raise _invalid(operation, "`ok: false` with a 2xx status")
    return {"ok": True}


def read_posted(operation: str, data: Any) -> Dict[str, Any]:
    """`{id, createdAt}` (CAP) or `{success, message: {...}}` (production); refusals are `not_posted`."""
    raw = _body(operation, data)
    if raw.get("success") is False or raw.get("refused") is True or raw.get("skipped") is True:
        reason = raw["reason"] if isinstance(raw.get("reason"), str) else "no reason given"
        raise CapSdkError(
            "not_posted",
            f"{operation} posted nothing: {reason}",
            {"reason": reason, "refused": raw.get("refused") is True, "skipped": raw.get("skipped") is True},
        )
    message = raw["message"] if isinstance(raw.get("message"), dict) else raw
    message_id = _id_of(raw) or _id_of(message)
    if message_id is None:
        raise _invalid(operation, "no message id")
    created = raw.get("createdAt", message.get("createdAt"))
    return {"id": message_id, "createdAt": created if isinstance(created, str) else ""}


def read_renew(operation: str, data: Any) -> Dict[str, Any]:
    raw = _body(operation, data)
    if not isinstance(raw.get("leaseExpiresAt"), str):
        raise _invalid(operation, "no `leaseExpiresAt`")
    return {**raw, "ok": True}


def read_release(data: Any) -> Dict[str, Any]:
    raw = data if isinstance(data, dict) else {}
    return {**raw, "ok": True}


def read_cancel(operation: str, data: Any) -> Dict[str, Any]:
    """`{ok: true, status, changed}` (feature `cancel`). Without a string `status` and a boolean `changed`
    the caller cannot tell whether the event was cancelled: invalid."""
    raw = _body(operation, data)
    if raw.get("ok") is False or not isinstance(raw.get("status"), str) or not isinstance(raw.get("changed"), bool):
        raise _invalid(operation, "no `status` and `changed`")
    return {**raw, "ok": True}


def read_cancellation(operation: str, data: Any) -> Dict[str, Any]:
    """`{cancelRequested: true, reason, requestedAt}` or `{cancelRequested: false, leaseExpiresAt}`. Without
    a boolean `cancelRequested` there is nothing to act on: invalid; a cancel without a reason is `requested`."""
    raw = _body(operation, data)
    requested = raw.get("cancelRequested")
    if not isinstance(requested, bool):
        raise _invalid(operation, "no boolean `cancelRequested`")
    if requested:
        reason = raw["reason"] if isinstance(raw.get("reason"), str) and raw["reason"] else "requested"
        at = raw["requestedAt"] if isinstance(raw.get("requestedAt"), str) else ""
        return {**raw, "cancelRequested": True, "reason": reason, "requestedAt": at}
    expires = raw["leaseExpiresAt"] if isinstance(raw.get("leaseExpiresAt"), str) else ""
    return {**raw, "cancelRequested": False, "leaseExpiresAt": expires}


def read_ack_many(operation: str, data: Any, ids: list) -> Dict[str, Any]:
    """`{results: [{id, ok, code?}]}` in request order; a result without an id takes the request's. One
    result per id sent, each for that id: anything else cannot be matched to the acks and is invalid."""
    raw = _body(operation, data)
    results = raw.get("results")
    if not isinstance(results, list) or len(results) != len(ids):
        raise _invalid(operation, f"no `results` array of {len(ids)} items")
    out = []
    for i, item in enumerate(results):
        if not isinstance(item, dict) or (_id_of(item) or ids[i]) != ids[i]:
            raise _invalid(operation, f"results[{i}] that is not the result for {ids[i]}")
        entry = {**item, "id": ids[i], "ok": item.get("ok") is True}
        out.append(entry)
    return {**raw, "results": out}


def read_messages(operation: str, data: Any) -> Dict[str, Any]:
    messages = _body(operation, data).get("messages")
    if not isinstance(messages, list):
        raise _invalid(operation, "no `messages` array")
    out = []
    for i, raw in enumerate(messages):
        if not isinstance(raw, dict):
            raise _invalid(operation, f"messages[{i}] that is not an object")
        message_id = _id_of(raw)
        if message_id is None:
            raise _invalid(operation, f"messages[{i}] without an id")
        out.append(
            {
                **raw,
                "id": message_id,
                "content": raw["content"] if isinstance(raw.get("content"), str) else "",
                "self": raw.get("self") is True,
                "isBot": raw.get("isBot") is True,
            }
        )
    return {"messages": out}


def read_memory(operation: str, data: Any) -> Dict[str, Any]:
    raw = _body(operation, data)
    return {
        **raw,
        "content": raw["content"] if isinstance(raw.get("content"), str) else "",
        "sections": raw["sections"] if isinstance(raw.get("sections"), dict) else {},
        "schemaVersion": 2,
    }


def read_write(data: Any) -> Dict[str, Any]:
    raw = data if isinstance(data, dict) else {}
    return {**raw, "ok": True, "schemaVersion": 2}


def read_info(operation: str, data: Any) -> Dict[str, Any]:
    raw = _body(operation, data)

    def num(key: str) -> int:
        value = raw.get(key)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise _invalid(operation, f"no numeric `{key}`")
        return int(value)

    def optional(key: str, default: int) -> int:
        value = raw.get(key)
        return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else default

    features = raw.get("features")
    return {
        **raw,
        "protocol": "cap",
        "version": "1",
        "leaseSeconds": num("leaseSeconds"),
        "maxAttempts": num("maxAttempts"),
        "maxLimit": num("maxLimit"),
        "maxWaitSeconds": optional("maxWaitSeconds", 0),
        "maxMessageBytes": optional("maxMessageBytes", 65536),
        "features": [f for f in features if isinstance(f, str)] if isinstance(features, list) else [],
    }


def read_decision(operation: str, data: Any) -> Dict[str, Any]:
    raw = _body(operation, data)
    decision_id = _id_of(raw)
    if decision_id is None or not isinstance(raw.get("messageId"), str):
        raise _invalid(operation, "no `id`/`messageId`")
    created = raw.get("createdAt")
    return {**raw, "id": decision_id, "createdAt": created if isinstance(created, str) else ""}


def read_error_body(data: Any) -> Dict[str, Any]:
    """The parts of an error body: CAP `{code, message, details}`, production `{message, code?, reason?}` or `{error}`."""
    if isinstance(data, str):
        text = data.strip()
        return {"message": text[:500]} if text else {}
    if not isinstance(data, dict):
        return {}
    code = data.get("code")
    out: Dict[str, Any] = {}
    if isinstance(code, str) and _CODE.match(code):
        out["code"] = code
    for key in ("message", "error"):
        if isinstance(data.get(key), str):
            out["message"] = data[key]
            break
    details = data.get("details") if isinstance(data.get("details"), dict) else None
    if isinstance(data.get("reason"), str):
        details = {**(details or {}), "reason": data["reason"]}
    if details is not None:
        out["details"] = details
    return out
