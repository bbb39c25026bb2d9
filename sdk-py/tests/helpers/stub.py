"""A scripted HTTP server on a real socket for the client's unit tests: each request gets the next
scripted answer (status, body, headers) and is recorded (method, path, headers, body). It plays the
production kernel's shapes and failures that the reference kernel, rightly, never produces."""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List, Optional, Tuple

Answer = Tuple[int, Any, Dict[str, str]]


def answer(status: int, body: Any = None, headers: Optional[Dict[str, str]] = None, raw: Optional[bytes] = None) -> Answer:
    return (status, raw if raw is not None else body, {**(headers or {}), **({"x-raw": "1"} if raw is not None else {})})


class StubKernel:
    def __init__(self, answers: List[Answer]) -> None:
        self.answers = list(answers)
        self.requests: List[Dict[str, Any]] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _serve(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                stub.requests.append(
                    {
                        "method": self.command,
                        "path": self.path,
                        "headers": {k.lower(): v for k, v in self.headers.items()},
                        "body": json.loads(body) if body else None,
                    }
                )
                if not stub.answers:
                    status, payload, headers = 500, {"code": "internal", "message": "stub ran out of answers"}, {}
                else:
                    status, payload, headers = stub.answers.pop(0)
                if headers.pop("x-hang", None):
                    threading.Event().wait(float(payload))
                    return
                delay = headers.pop("x-delay", None)
                if delay:
                    threading.Event().wait(float(delay))
                raw = headers.pop("x-raw", None)
                data = payload if raw else (b"" if payload is None else json.dumps(payload).encode())
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                if not raw and payload is not None:
                    self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PUT = do_DELETE = _serve  # noqa: N815

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> "StubKernel":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
