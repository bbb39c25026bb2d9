"""A counting proxy in front of the real reference kernel: forwards every request as it came and its
answer as it went, and records each one (when it arrived, method, path, headers, JSON body), so a test can
count what a driver asked of the kernel and read what it sent. `hide_features` takes names out of `GET /info`'s `features`, which
turns a kernel that offers a feature into one that does not without touching the kernel; `fail` answers
the requests whose path contains a key with that status (`unavailable`) without forwarding them, as a
route that is down would.
"""
from __future__ import annotations

import http.client
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, Iterable, List, Optional
from urllib.parse import urlsplit

HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "host"}


class CountingProxy:
    def __init__(self, target: str, hide_features: Iterable[str] = (), fail: Optional[Dict[str, int]] = None) -> None:
        parts = urlsplit(target)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.hidden = set(hide_features)
        self.fail = dict(fail or {})
        self.requests: List[Dict[str, Any]] = []
        self._lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _forward(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                proxy._record(self.command, self.path, body, {k.lower(): v for k, v in self.headers.items()})
                failing = next((status for part, status in proxy.fail.items() if part in self.path), None)
                if failing is not None:
                    data = json.dumps({"code": "unavailable", "message": "the test proxy fails this route"}).encode()
                    self.send_response(failing)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    return
                headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
                upstream = http.client.HTTPConnection(proxy.host, proxy.port, timeout=120)
                try:
                    upstream.request(self.command, self.path, body=body or None, headers=headers)
                    answer = upstream.getresponse()
                    data = answer.read()
                    status, answer_headers = answer.status, answer.getheaders()
                finally:
                    upstream.close()
                if self.path.split("?")[0].endswith("/agents/runtime/info") and status == 200 and proxy.hidden:
                    info = json.loads(data)
                    info["features"] = [f for f in info.get("features", []) if f not in proxy.hidden]
                    data = json.dumps(info).encode()
                try:
                    self.send_response(status)
                    for k, v in answer_headers:
                        if k.lower() not in HOP_BY_HOP:
                            self.send_header(k, v)
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:
                    pass  # the client went away (a watch cut off when its turn ended)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _forward  # noqa: N815

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True).start()

    def _record(self, method: str, path: str, body: bytes, headers: Optional[Dict[str, str]] = None) -> None:
        try:
            parsed = json.loads(body) if body else None
        except ValueError:
            parsed = None
        with self._lock:
            self.requests.append({"at": time.monotonic(), "method": method, "path": path, "body": parsed, "headers": headers or {}})

    def seen(self, method: str, contains: str) -> List[Dict[str, Any]]:
        """The recorded requests of `method` whose path contains `contains`, in arrival order."""
        with self._lock:
            return [r for r in self.requests if r["method"] == method and contains in r["path"]]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
