"""run_driver with the echo handler of examples/python-sdk/echo.py against deliberately wrong servers (a table
in helpers/wrong_server.py: acks refused or answered with junk, Prism's batch-ack example, an acked event
delivered again, polls that are not event lists), and the example itself run as a user would. Whatever the
server answers, the driver must not spin: after the first second the server sees at most 5 requests in any
second, counted on the server side; and it must neither crash nor stop. Each row runs twice, with a short
`poll_interval` (the base of every backoff) and with the default options; every observation runs at once,
so the module takes about as long as its longest window (7 s).
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import unittest
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict

from cap_sdk import CapClient, StopSignal, run_driver
from helpers.wrong_server import WRONG_SERVERS, RunningWrongServer, WrongServer

BOUND = 5
TOKEN = "cm_agent_" + "c" * 64
EXAMPLE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "examples", "python-sdk", "echo.py"))
SHORT, DEFAULT = 4.5, 7.0  # observation windows; the defaults' first backoff is 5–6 s


def mention(event: Dict[str, Any], ctx: Any) -> None:
    """The handler of examples/python-sdk/echo.py."""
    ctx.reply(f"echo: {event['payload']['content']}")


def observe(row: WrongServer, options: Dict[str, Any], window: float) -> Dict[str, Any]:
    server = RunningWrongServer(row)
    stop = StopSignal()
    box: Dict[str, Any] = {"backoffs": [], "poll_errors": [], "ack_errors": []}

    def target() -> None:
        try:
            box["summary"] = run_driver(
                CapClient(server.url, TOKEN), {"mention.received": mention}, stop=stop, handle_signals=False,
                on_backoff=lambda b: box["backoffs"].append(b["reason"]),
                on_poll_error=lambda p: box["poll_errors"].append(str(p["error"])),
                on_error=lambda e: box["ack_errors"].append(str(e["error"])) if e["stage"] == "ack" else None,
                **options,
            )
        except BaseException as err:  # noqa: BLE001 - reported by the test
            box["error"] = err

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    time.sleep(window)  # the observation window: wall-clock time is what the bound is about
    end = time.monotonic()
    running = thread.is_alive()
    stop.set()
    thread.join(20)
    server.close()
    return {"counts": server.per_second(end), "running": running, "stopped": not thread.is_alive(),
            "error": box.get("error"), "backoffs": box["backoffs"], "poll_errors": box["poll_errors"],
            "ack_errors": box["ack_errors"]}


def observe_example(row: WrongServer, window: float) -> Dict[str, Any]:
    """examples/python-sdk/echo.py as its README runs it (CAP_URL, CAP_TOKEN, default options), then SIGTERM."""
    server = RunningWrongServer(row)
    env = {**os.environ, "CAP_URL": server.url, "CAP_TOKEN": TOKEN}
    proc = subprocess.Popen([sys.executable, EXAMPLE], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    time.sleep(window)
    end = time.monotonic()
    running = proc.poll() is None
    proc.send_signal(signal.SIGTERM)
    try:
        output, _ = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
        server.close()
    return {"counts": server.per_second(end), "running": running, "code": proc.returncode, "output": output}


CASES = [(f"{row.name} (poll_interval 0.25)", row, {"poll_interval": 0.25}, SHORT) for row in WRONG_SERVERS] + [
    (f"{row.name} (default options)", row, {}, DEFAULT) for row in WRONG_SERVERS
]
PRISM_LIKE = next(row for row in WRONG_SERVERS if row.name.startswith("the batch ack answers Prism"))


class WrongServers(unittest.TestCase):
    seen: Dict[str, Any] = {}

    @classmethod
    def setUpClass(cls) -> None:
        with ThreadPoolExecutor(max_workers=len(CASES) + 1) as pool:
            futures = {label: pool.submit(observe, row, options, window) for label, row, options, window in CASES}
            example = pool.submit(observe_example, PRISM_LIKE, DEFAULT)
            cls.seen = {label: f.result() for label, f in futures.items()}
            cls.example = example.result()

    def test_at_most_5_requests_a_second_after_the_first_and_it_keeps_running(self) -> None:
        for label, _row, _options, _window in CASES:
            with self.subTest(label):
                seen = self.seen[label]
                report = f"per second {seen['counts']}, backoffs {seen['backoffs'][:2]}, error {seen['error']!r}"
                self.assertIsNone(seen["error"], report)
                self.assertGreater(len(seen["counts"]), 1, report)
                self.assertLessEqual(max(seen["counts"][1:]), BOUND, report)
                # It keeps trying, is still running at the end of the window, and stops when asked.
                self.assertGreater(sum(seen["counts"][1:]), 0, report)
                self.assertTrue(seen["running"], report)
                self.assertTrue(seen["stopped"], report)
                # And it says what went wrong, through the hooks (an ack retried through Retry-After for the
                # whole window is reported by on_error before any on_backoff).
                self.assertGreater(len(seen["backoffs"]) + len(seen["poll_errors"]) + len(seen["ack_errors"]), 0, report)

    def test_the_example_itself_against_the_prism_shaped_server(self) -> None:
        seen = self.example
        report = f"per second {seen['counts']}, exit {seen['code']}, output {seen['output'][-500:]!r}"
        self.assertLessEqual(max(seen["counts"][1:]), BOUND, report)
        self.assertGreater(sum(seen["counts"][1:]), 0, report)
        self.assertTrue(seen["running"], report)
        self.assertEqual(seen["code"], 0, report)
        self.assertIn("stopped after", seen["output"], report)


if __name__ == "__main__":
    unittest.main()
