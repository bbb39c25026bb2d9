"""The real reference kernel for the integration tests: provisions a fresh SQLite file (one admin human,
one pod, the named agents with runtime tokens) through `cap-kernel provision`, serves it with
`node reference-server/dist/bin.js serve` on a free port, and offers what a test needs of the admin
surface (post as the human, inject events, read the queue, revoke a token). `stop()`/`start()` bring it
down and back on the same port and database. A port of sdk-ts/test/helpers/kernel.ts; it never reaches
into the kernel's database: everything goes through its CLI and HTTP. Waits are deadline polls.
"""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from typing import Any, Callable, Dict, List, Optional, TypeVar

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
KERNEL_BIN = os.environ.get("CAP_KERNEL_BIN") or os.path.join(REPO, "reference-server", "dist", "bin.js")
NODE = os.environ.get("CAP_TEST_NODE") or shutil.which("node") or "node"

T = TypeVar("T")


def wait_until(probe: Callable[[], Optional[T]], what: str, timeout: float = 15.0, every: float = 0.05) -> T:
    """Polls `probe` until it returns something truthy, or fails at the deadline."""
    deadline = time.monotonic() + timeout
    last: Optional[BaseException] = None
    while True:
        try:
            value = probe()
            if value:
                return value
        except Exception as err:  # noqa: BLE001 - reported at the deadline
            last = err
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}" + (f" (last error: {last})" if last else ""))
        time.sleep(every)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class TestKernel:
    def __init__(
        self,
        agents: List[str],
        lease_seconds: Optional[int] = None,
        listeners: Optional[List[str]] = None,
        env: Optional[Dict[str, str]] = None,
    ) -> None:
        if not os.path.exists(KERNEL_BIN):
            raise RuntimeError(f"{KERNEL_BIN} does not exist: build the kernel (pnpm --filter @commonly/cap-kernel build)")
        self.dir = tempfile.mkdtemp(prefix="cap-sdk-py-kernel-")
        self.db = f"sqlite:{os.path.join(self.dir, 'kernel.db')}"
        self.lease_seconds = lease_seconds
        self.names = agents
        self.listeners = agents if listeners is None else listeners
        self.port = 0
        self.url = ""
        self.pod_id = ""
        self.admin_token = ""
        self.agents: Dict[str, Dict[str, str]] = {}
        self.process: Optional[subprocess.Popen] = None
        self.stderr_path = os.path.join(self.dir, "stderr.log")
        #: Added to the kernel's environment (the `OTEL_*` variables of a test that traces it).
        self.env = dict(env or {})

    def provision(self) -> None:
        spec = {
            "users": [{"name": "lily", "admin": True}],
            "pods": [{"name": "lab", "owner": "lily"}],
            "agents": [{"name": n, "pods": ["lab"], "messagePosted": n in self.listeners} for n in self.names],
        }
        path = os.path.join(self.dir, "provision.json")
        with open(path, "w") as f:
            json.dump(spec, f)
        out = subprocess.run(
            [NODE, KERNEL_BIN, "provision", "--db", self.db, "--file", path],
            check=True, capture_output=True, text=True, timeout=60,
        ).stdout
        made = json.loads(out)
        self.admin_token = made["users"][0]["token"]
        self.pod_id = made["pods"][0]["id"]
        for a in made["agents"]:
            self.agents[a["name"]] = a

    def start(self) -> None:
        if not self.port:
            self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        args = [NODE, KERNEL_BIN, "serve", "--db", self.db, "--port", str(self.port), "--log-level", "warn"]
        if self.lease_seconds:
            args += ["--lease-seconds", str(self.lease_seconds)]
        self._stderr = open(self.stderr_path, "ab")
        env = {**os.environ, **self.env} if self.env else None
        self.process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=self._stderr, env=env)

        def ready() -> bool:
            if self.process is not None and self.process.poll() is not None:
                raise RuntimeError(f"cap-kernel exited: {self.stderr()}")
            with urllib.request.urlopen(f"{self.url}/readyz", timeout=2) as r:
                return r.status == 200

        wait_until(ready, f"cap-kernel answers /readyz on {self.url}", timeout=30)

    def stderr(self) -> str:
        with open(self.stderr_path, errors="replace") as f:
            return f.read()[-5000:]

    def stop(self, kill: bool = True) -> None:
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.kill() if kill else self.process.terminate()
            self.process.wait(timeout=20)
        self._stderr.close()
        self.process = None

    def dispose(self) -> None:
        self.stop(kill=False)
        shutil.rmtree(self.dir, ignore_errors=True)

    # ---- the admin surface, as the human ---------------------------------------------------------
    def admin(self, method: str, path: str, body: Any = None, headers: Optional[Dict[str, str]] = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(f"{self.url}/api{path}", data=data, method=method)
        request.add_header("authorization", f"Bearer {self.admin_token}")
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        if data is not None:
            request.add_header("content-type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=10) as r:
                text = r.read().decode()
        except urllib.error.HTTPError as err:
            raise AssertionError(f"{method} /api{path}: {err.code} {err.read().decode()}") from None
        return json.loads(text) if text else None

    def emit(self, agent: str, event_type: str, payload: Optional[Dict[str, Any]] = None, headers: Optional[Dict[str, str]] = None) -> str:
        """An operator's inject; `headers` may carry its trace context (feature `trace-context`)."""
        body = {"agentName": agent, "podId": self.pod_id, "type": event_type, "payload": payload or {}}
        return self.admin("POST", "/admin/events", body, headers)["id"]

    def say(self, content: str, headers: Optional[Dict[str, str]] = None) -> str:
        """A message from the pod's human; `headers` may carry its trace context (feature `trace-context`)."""
        return self.admin("POST", f"/pods/{self.pod_id}/messages", {"content": content}, headers)["id"]

    def messages(self) -> List[Dict[str, Any]]:
        return self.admin("GET", f"/pods/{self.pod_id}/messages?limit=100")["messages"]

    def queue(self, agent: str) -> List[Dict[str, Any]]:
        q = self.admin("GET", f"/admin/pods/{self.pod_id}/queue")
        for a in q["agents"]:
            if a["agentName"] == agent:
                return a["events"]
        return []

    def state(self, agent: str, event_id: str) -> Optional[Dict[str, Any]]:
        for e in self.queue(agent):
            if e["id"] == event_id:
                return e
        return None

    def cancel(self, event_id: str, reason: Optional[str] = None) -> Dict[str, Any]:
        """Cancel an event as the pod's human (feature `cancel`): what the console's Stop button does."""
        body = {} if reason is None else {"reason": reason}
        return self.admin("POST", f"/pods/{self.pod_id}/events/{event_id}/cancel", body)

    def set_double_texting(self, agent: str, policy: str) -> None:
        """The installation's double-texting policy (`enqueue` or `interrupt`), as its owner sets it."""
        self.admin("PATCH", f"/registry/pods/{self.pod_id}/agents/{agent}", {"doubleTexting": policy})

    def revoke(self, agent: str) -> None:
        a = self.agents[agent]
        self.admin("DELETE", f"/registry/pods/{a['podId']}/agents/{a['name']}/runtime-tokens/{a['tokenId']}")


def start_kernel(
    agents: List[str],
    lease_seconds: Optional[int] = None,
    listeners: Optional[List[str]] = None,
    env: Optional[Dict[str, str]] = None,
) -> TestKernel:
    kernel = TestKernel(agents, lease_seconds, listeners, env)
    kernel.provision()
    try:
        kernel.start()
    except BaseException:
        kernel.dispose()
        raise
    return kernel
