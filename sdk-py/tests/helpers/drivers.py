"""Drivers in background threads for the integration tests, with every hook recorded."""
from __future__ import annotations

import threading
from typing import Any, Dict, List, Optional

from cap_sdk import CapClient, RetryPolicy, StopSignal, run_driver


def client_for(kernel: Any, agent: str, **options: Any) -> CapClient:
    options.setdefault("retry", RetryPolicy(retries=1, base_delay=0.01))
    return CapClient(kernel.url, kernel.agents[agent]["token"], **options)


class Recorder:
    def __init__(self) -> None:
        self.acks: List[Dict[str, Any]] = []
        self.errors: List[Dict[str, Any]] = []
        self.renews: List[str] = []
        self.lost: List[str] = []
        self.modes: List[str] = []
        self.poll_errors: List[Any] = []
        self.releases: List[Dict[str, Any]] = []

    def hooks(self) -> Dict[str, Any]:
        return {
            "on_ack": lambda a: self.acks.append({"id": a["event"]["id"], "duplicate": a["duplicate"], **a["result"]}),
            "on_error": lambda e: self.errors.append(e),
            "on_renew": lambda r: self.renews.append(r["event"]["id"]),
            "on_lease_lost": lambda r: self.lost.append(r["event"]["id"]),
            "on_poll_mode": lambda m: self.modes.append(m["mode"]),
            "on_poll_error": lambda p: self.poll_errors.append(p["error"]),
            "on_release": lambda r: self.releases.append({"id": r["event"]["id"], "delay": r["delay_seconds"]}),
        }


class BackgroundDriver:
    def __init__(self, client: CapClient, handlers: Any, **options: Any) -> None:
        self.rec = Recorder()
        self.stop_signal = StopSignal()
        self.summary: Optional[Any] = None
        self.error: Optional[BaseException] = None
        options.setdefault("wait_seconds", 2)
        options.setdefault("poll_interval", 0.2)

        def target() -> None:
            try:
                self.summary = run_driver(client, handlers, stop=self.stop_signal, handle_signals=False, **options, **self.rec.hooks())
            except BaseException as err:  # noqa: BLE001 - the test reads it
                self.error = err

        self.thread = threading.Thread(target=target, daemon=True)
        self.thread.start()

    def stop(self, timeout: float = 20.0) -> Any:
        self.stop_signal.set()
        self.thread.join(timeout)
        if self.thread.is_alive():
            raise AssertionError("the driver did not stop")
        if self.error is not None:
            raise self.error
        return self.summary

    def join(self, timeout: float = 30.0) -> None:
        self.thread.join(timeout)
