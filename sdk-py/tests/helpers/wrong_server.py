"""Deliberately wrong CAP servers for the rate-bound tests (a port of sdk-ts/test/helpers/wrong-server.ts):
every poll answers the same one or two mention events (as a stateless mock does) or a fresh one, posts
succeed, and the answer under test is wrong — acks refused or answered with junk, a batch ack whose results
do not match its items (Prism's example), an acked event delivered again, polls answered with what is not
an event list. Each server records when every request arrived, so a test can count requests per second on
the server side. It must never behave like a kernel a driver should hurry for.
"""
from __future__ import annotations

import json
import re
import socket
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, List, Optional, Tuple

# (status, body bytes or None to drop the connection, extra headers)
Reply = Tuple[int, Optional[bytes], Dict[str, str]]
Answer = Callable[[Any], Reply]


def _json(status: int, body: Any, headers: Optional[Dict[str, str]] = None) -> Answer:
    return lambda _request: (status, json.dumps(body).encode(), headers or {})


def _raw(status: int, text: str) -> Answer:
    return lambda _request: (status, text.encode(), {})


def _reset(_request: Any) -> Reply:
    return (0, None, {})


def _three_for_two(request: Any) -> Reply:
    ids = [a["id"] for a in request["acks"]] + ["evt_extra"]
    return (200, json.dumps({"results": [{"id": i, "ok": True} for i in ids]}).encode(), {})


_PRISM_BATCH = _json(200, {"results": [{"id": "evt_01JH7Z9QK3W5Y2", "ok": True},
                                       {"id": "evt_01JH7Z9QK3W5Y3", "ok": False, "code": "event_not_found"}]})
_BOOM = {"code": "internal_error", "message": "boom"}


@dataclass
class WrongServer:
    name: str
    features: Tuple[str, ...] = ("long-poll",)
    per_poll: int = 1
    fresh: bool = False
    poll: Optional[Answer] = None
    ack: Optional[Answer] = None
    batch_ack: Optional[Answer] = None


BATCH = ("long-poll", "batch-ack")
WRONG_SERVERS: List[WrongServer] = [
    WrongServer("acks answer 500", ack=_json(500, _BOOM)),
    WrongServer("acks answer 200 with a body that is not JSON", ack=_raw(200, "<html>ok</html>")),
    WrongServer("acks answer 200 {ok: false}", ack=_json(200, {"ok": False})),
    WrongServer("acks answer 200 with a JSON array", ack=_json(200, [1, 2])),
    WrongServer("acks reset the connection", ack=_reset),
    WrongServer("acks answer 200 {ok: true} and the acked event comes back at every poll"),
    WrongServer("the batch ack answers Prism's example (two results for other ids)", BATCH, 2, batch_ack=_PRISM_BATCH),
    WrongServer("the batch ack answers three results for two items", BATCH, 2, batch_ack=_three_for_two),
    WrongServer("the batch ack answers 503 with Retry-After: 1", BATCH, 2,
                batch_ack=_json(503, {"code": "store_unavailable", "message": "down"}, {"retry-after": "1"})),
    WrongServer("a fresh event at every poll, and every ack answers 500", fresh=True, ack=_json(500, _BOOM)),
    WrongServer("polls answer an events value that is not an array", poll=_json(200, {"events": "soon"})),
    WrongServer("polls answer 200 with malformed JSON", poll=_raw(200, '{"events": [')),
    WrongServer("polls answer 500", poll=_json(500, _BOOM)),
]

INFO = {"protocol": "cap", "version": "1", "leaseSeconds": 30, "maxAttempts": 5, "maxLimit": 50,
        "maxWaitSeconds": 25, "maxMessageBytes": 65536}


def _stamp(t: datetime) -> str:
    return t.isoformat().replace("+00:00", "Z")


def _mention(event_id: str) -> Dict[str, Any]:
    now = datetime.now(timezone.utc)
    return {
        "id": event_id, "type": "mention.received", "podId": "pod_wrong", "attempts": 1,
        "payload": {"messageId": f"msg_{event_id}", "podId": "pod_wrong", "content": "@echo are you there?",
                    "author": {"id": "usr_1", "kind": "human", "name": "lily"}, "mention": "echo"},
        "createdAt": _stamp(now), "leaseExpiresAt": _stamp(now + timedelta(seconds=30)),
    }


class RunningWrongServer:
    """Serves one row on a free port; `times` holds the arrival time (time.monotonic()) of every request."""

    def __init__(self, row: WrongServer) -> None:
        self.row = row
        self.times: List[float] = []
        self.polls = 0
        self.messages = 0
        self.lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _serve(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                with outer.lock:
                    outer.times.append(time.monotonic())
                status, body, headers = outer.answer(self.command, self.path, json.loads(raw) if raw else None)
                if body is None:  # a connection reset: no answer at all
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = _serve  # noqa: N815

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True).start()

    def answer(self, method: str, path: str, request: Any) -> Reply:
        path = path.split("?")[0].replace("/api/agents/runtime", "")
        row = self.row
        if path == "/info":
            return _json(200, {**INFO, "features": list(row.features)})(request)
        if path == "/events" and method == "GET":
            if row.poll:
                return row.poll(request)
            with self.lock:
                batch, self.polls = self.polls, self.polls + 1
            ids = [f"evt_{batch}_{i}" if row.fresh else f"evt_same_{i}" for i in range(row.per_poll)]
            return _json(200, {"events": [_mention(i) for i in ids]})(request)
        if path == "/events/ack":
            return (row.batch_ack or _json(200, {"results": []}))(request)
        if re.fullmatch(r"/events/[^/]+/ack", path):
            return (row.ack or _json(200, {"ok": True}))(request)
        if re.fullmatch(r"/pods/[^/]+/messages", path) and method == "POST":
            with self.lock:
                self.messages += 1
                n = self.messages
            return _json(201, {"id": f"msg_reply_{n}", "createdAt": _stamp(datetime.now(timezone.utc))})(request)
        return _json(404, {"code": "route_not_found", "message": f"no route {method} {path}"})(request)

    def per_second(self, until: float) -> List[int]:
        """Requests per whole second from the first request until `until` (time.monotonic())."""
        with self.lock:
            times = [t for t in self.times if t < until]
        if not times:
            return []
        start = times[0]
        counts = [0] * (int((until - start) // 1) + 1)
        for t in times:
            counts[int((t - start) // 1)] += 1
        return counts

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
