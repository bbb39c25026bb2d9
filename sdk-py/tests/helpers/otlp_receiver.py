"""A small OTLP/HTTP trace receiver on loopback, the Python twin of the kernel's
reference-server/src/testing/otlp-receiver.ts: point a kernel at it with `OTEL_EXPORTER_OTLP_ENDPOINT=<url>` and
`OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/json`, then read the spans it exported. `POST /v1/traces` with an
OTLP/JSON body (hex or base64 ids, gzip or not) is decoded into plain dicts; anything else is answered 404.
It never listens beyond 127.0.0.1."""
from __future__ import annotations

import base64
import gzip
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List, Optional

KINDS = ["unspecified", "internal", "server", "client", "producer", "consumer"]


def _id(value: Any) -> str:
    """An OTLP/JSON id: lowercase hex as the spec says, base64 as protobuf's JSON mapping would give."""
    if not isinstance(value, str) or not value:
        return ""
    if re.fullmatch(r"[0-9a-fA-F]+", value) and len(value) in (16, 32):
        return value.lower()
    return base64.b64decode(value).hex()


def _value(v: Optional[Dict[str, Any]]) -> Any:
    if not v:
        return None
    for key, read in (("stringValue", str), ("boolValue", bool), ("intValue", int), ("doubleValue", float)):
        if key in v:
            return read(v[key])
    if "arrayValue" in v:
        return [_value(x) for x in v["arrayValue"].get("values", [])]
    return None


def _attributes(items: Optional[List[Dict[str, Any]]]) -> Dict[str, Any]:
    return {kv["key"]: _value(kv.get("value")) for kv in items or []}


def _kind(kind: Any) -> str:
    if isinstance(kind, int):
        return KINDS[kind] if 0 <= kind < len(KINDS) else "unspecified"
    if isinstance(kind, str):
        name = kind.replace("SPAN_KIND_", "").lower()
        return name if name in KINDS else "unspecified"
    return "unspecified"


def decode(body: Dict[str, Any]) -> List[Dict[str, Any]]:
    """The spans of an OTLP/JSON ExportTraceServiceRequest: traceId, spanId, parentSpanId, name, kind,
    attributes, serviceName."""
    out = []
    for rs in body.get("resourceSpans") or []:
        service = _attributes((rs.get("resource") or {}).get("attributes")).get("service.name", "")
        for ss in rs.get("scopeSpans") or []:
            for s in ss.get("spans") or []:
                out.append({
                    "traceId": _id(s.get("traceId")),
                    "spanId": _id(s.get("spanId")),
                    "parentSpanId": _id(s.get("parentSpanId")) or None,
                    "name": s.get("name", ""),
                    "kind": _kind(s.get("kind")),
                    "attributes": _attributes(s.get("attributes")),
                    "serviceName": service,
                })
    return out


class OtlpReceiver:
    def __init__(self) -> None:
        self._spans: List[Dict[str, Any]] = []
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                if self.path.split("?")[0] != "/v1/traces":
                    self.send_response(404)
                    self.send_header("content-length", "0")
                    self.end_headers()
                    return
                if self.headers.get("content-encoding") == "gzip":
                    raw = gzip.decompress(raw)
                if "json" in (self.headers.get("content-type") or ""):
                    with receiver._lock:
                        receiver._spans.extend(decode(json.loads(raw)))
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", "2")
                self.end_headers()
                self.wfile.write(b"{}")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True).start()

    def spans(self) -> List[Dict[str, Any]]:
        """Every span decoded so far, in arrival order."""
        with self._lock:
            return list(self._spans)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
