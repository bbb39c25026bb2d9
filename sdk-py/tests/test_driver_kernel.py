"""run_driver against the real reference kernel (SQLite, 1-second leases) over real sockets."""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import unittest

from cap_sdk import CapHttpError, CapSdkError, JsonFileHandledStore
from helpers.drivers import BackgroundDriver, client_for
from helpers.kernel import start_kernel, wait_until

AGENTS = ["echo", "abandon", "lostack", "longrun", "revoked", "graceful", "failing", "released", "batched", "readme"]


def task(title: str) -> dict:
    return {"taskId": title, "title": title}


class DriverAgainstKernel(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        # One agent per test: a driver stopped by one test cannot take events meant for the next.
        cls.kernel = start_kernel(AGENTS, lease_seconds=1, listeners=[])
        cls.dir = tempfile.mkdtemp(prefix="cap-sdk-py-driver-")

    @classmethod
    def tearDownClass(cls) -> None:
        cls.kernel.dispose()
        shutil.rmtree(cls.dir, ignore_errors=True)

    def setUp(self) -> None:
        self.drivers = []

    def tearDown(self) -> None:
        for d in self.drivers:
            d.stop_signal.set()
            d.join(20)

    def start(self, agent: str, handlers, client=None, **options) -> BackgroundDriver:
        d = BackgroundDriver(client or client_for(self.kernel, agent), handlers, **options)
        self.drivers.append(d)
        return d

    def test_answers_a_mention_with_a_threaded_reply_end_to_end(self) -> None:
        def mention(event, ctx):
            ctx.reply(f"echo: {event['payload']['content']}")

        d = self.start("echo", {"mention.received": mention})
        asked = self.kernel.say("@echo what is 17 * 23?")
        reply = wait_until(
            lambda: next((m for m in self.kernel.messages() if m["content"] == "echo: @echo what is 17 * 23?"), None),
            "the echo reply is in the pod",
        )
        self.assertEqual(reply["replyToMessageId"], asked)
        self.assertEqual(reply["author"]["name"], "echo")
        ack = wait_until(lambda: next((a for a in d.rec.acks if a["outcome"] == "posted"), None), "the mention acked posted")
        self.assertEqual(ack["messageId"], reply["id"])
        self.assertEqual(d.rec.modes, ["long-poll"])
        summary = d.stop()
        self.assertEqual(summary.handled, 1)

    def test_the_readme_echo_driver_answers_a_mention_and_stops_on_sigterm(self) -> None:
        with open(os.path.join(os.path.dirname(__file__), "..", "README.md"), encoding="utf-8") as f:
            code = re.search(r"## An echo driver\n\n```python\n(.*?)```", f.read(), re.S).group(1)
        env = {**os.environ, "CAP_URL": self.kernel.url, "CAP_TOKEN": self.kernel.agents["readme"]["token"]}
        proc = subprocess.Popen([sys.executable, "-u", "-c", code], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            self.kernel.say("@readme hello from the README")
            wait_until(lambda: any(m["content"] == "echo: @readme hello from the README" for m in self.kernel.messages()), "the README driver's echo")
            wait_until(lambda: any(e["state"] == "acked" for e in self.kernel.queue("readme")), "the mention acked")
        finally:
            proc.send_signal(signal.SIGTERM)
            out, _ = proc.communicate(timeout=20)
        self.assertEqual(proc.returncode, 0, out)
        self.assertRegex(out, r"mention\.received evt_\S+ -> posted")
        self.assertIn("stopped DriverSummary(", out)

    def test_redelivers_an_event_whose_driver_stopped_without_acking_after_its_lease_with_attempts_2(self) -> None:
        event_id = self.kernel.emit("abandon", "task.assigned", task("abandoned"))
        started = threading.Event()
        never = threading.Event()

        def stuck(event, ctx):
            started.set()
            never.wait(30)  # never finishes: this driver "crashes" mid-handler

        first = self.start("abandon", stuck, shutdown_timeout=0)
        wait_until(started.is_set, "the first driver is handling the event")
        summary = first.stop()
        self.assertEqual((summary.released, summary.handled), (1, 0))
        self.assertEqual(self.kernel.state("abandon", event_id)["attempts"], 1)

        seen = []
        second = self.start("abandon", lambda event, ctx: seen.append(event["attempts"]))
        wait_until(lambda: any(a["id"] == event_id for a in second.rec.acks), "the second driver acks the redelivery")
        self.assertEqual(seen, [2])
        state = self.kernel.state("abandon", event_id)
        self.assertEqual((state["state"], state["attempts"]), ("acked", 2))
        never.set()

    def test_re_acks_a_redelivery_without_running_the_handler_when_the_first_ack_was_lost_across_a_restart(self) -> None:
        path = os.path.join(self.dir, "handled.json")
        event_id = self.kernel.emit("lostack", "task.assigned", task("lost ack"))
        calls = []

        class DropAcks:
            """The first driver's client: every ack, single or batched, is 'lost' (raised as a network failure)."""

            def __init__(self, inner):
                self.inner = inner

            def __getattr__(self, name):
                return getattr(self.inner, name)

            def ack(self, *args, **kwargs):
                raise CapSdkError("network", "POST /events/{id}/ack got no answer: dropped by the test")

            def ack_many(self, *args, **kwargs):
                raise CapSdkError("network", "POST /events/ack got no answer: dropped by the test")

        first = self.start("lostack", lambda e, c: calls.append(e["id"]), client=DropAcks(client_for(self.kernel, "lostack")),
                           store=JsonFileHandledStore(path))
        wait_until(lambda: any(e["stage"] == "ack" for e in first.rec.errors), "the first ack is lost")
        first.stop()
        self.assertEqual(calls, [event_id])

        second = self.start("lostack", lambda e, c: calls.append(e["id"]), store=JsonFileHandledStore(path))
        ack = wait_until(lambda: next((a for a in second.rec.acks if a["id"] == event_id), None), "the redelivery is re-acked")
        self.assertTrue(ack["duplicate"])
        self.assertEqual(ack["outcome"], "acknowledged")
        self.assertEqual(calls, [event_id])
        state = self.kernel.state("lostack", event_id)
        self.assertEqual((state["state"], state["attempts"]), ("acked", 2))

    def test_renews_the_lease_while_a_handler_runs_past_it_and_no_other_poller_gets_the_event(self) -> None:
        event_id = self.kernel.emit("longrun", "task.assigned", task("long"))
        finish = threading.Event()
        # A 1-second lease leaves little slack on a loaded machine: renew every 0.3 s.
        d = self.start("longrun", lambda e, c: finish.wait(60), renew_at=0.3)
        wait_until(lambda: d.rec.renews.count(event_id) >= 7, "seven renewals (two lease lengths)")
        rival = client_for(self.kernel, "longrun")
        self.assertNotIn(event_id, [e["id"] for e in rival.poll()["events"]])
        finish.set()
        wait_until(lambda: any(a["id"] == event_id for a in d.rec.acks), "the long handler's event is acked")
        state = self.kernel.state("longrun", event_id)
        self.assertEqual((state["state"], state["attempts"]), ("acked", 1))

    def test_lets_the_running_handler_finish_on_a_graceful_stop_and_acks_it(self) -> None:
        event_id = self.kernel.emit("graceful", "task.assigned", task("finish me"))
        started, release = threading.Event(), threading.Event()

        def slow(event, ctx):
            started.set()
            release.wait(30)

        d = self.start("graceful", slow, shutdown_timeout=10)
        wait_until(started.is_set, "the handler is running")
        d.stop_signal.set()
        release.set()
        summary = d.stop()
        self.assertEqual((summary.handled, summary.released), (1, 0))
        self.assertEqual(self.kernel.state("graceful", event_id)["state"], "acked")

    def test_does_not_ack_a_failed_handler_and_applies_the_circuit(self) -> None:
        event_id = self.kernel.emit("failing", "task.assigned", task("boom"))
        circuits = []
        failed = threading.Event()

        def boom(event, ctx):
            failed.set()
            raise RuntimeError("model runtime crashed")

        d = self.start("failing", boom, poll_interval=30, on_circuit=circuits.append)
        wait_until(lambda: circuits, "the circuit decided a delay")
        self.assertEqual(circuits[0]["failure_class"], "runtime")
        self.assertFalse(circuits[0]["open"])
        self.assertGreaterEqual(circuits[0]["delay"], 30)
        self.assertLess(circuits[0]["delay"], 36)
        self.assertNotEqual(self.kernel.state("failing", event_id)["state"], "acked")
        self.assertEqual([e["stage"] for e in d.rec.errors], ["handler"])
        summary = d.stop()  # the stop wakes the circuit's sleep at once
        self.assertEqual(summary.failures, 1)

    def test_releases_a_failed_event_for_the_circuits_delay_and_handles_its_redelivery(self) -> None:
        event_id = self.kernel.emit("released", "task.assigned", task("flaky"))
        attempts = []

        def flaky(event, ctx):
            attempts.append(event["attempts"])
            if len(attempts) == 1:
                raise RuntimeError("model runtime crashed")

        d = self.start("released", flaky, poll_interval=0.5)
        wait_until(lambda: any(a["id"] == event_id for a in d.rec.acks), "the redelivery is handled and acked")
        self.assertEqual(d.rec.releases, [{"id": event_id, "delay": 1}])  # 0.5 s (+ jitter) rounded up
        self.assertEqual(attempts, [1, 2])
        state = self.kernel.state("released", event_id)
        self.assertEqual((state["state"], state["attempts"]), ("acked", 2))
        self.assertEqual(d.stop().failures, 1)

    def test_acks_a_batch_of_skipped_events_in_one_request(self) -> None:
        ids = [self.kernel.emit("batched", "summary.ready", {"summaryId": str(i), "content": "x"}) for i in range(3)]
        d = self.start("batched", {"task.assigned": lambda e, c: None})
        wait_until(lambda: len(d.rec.acks) == 3, "three acks")
        self.assertEqual(sorted(a["id"] for a in d.rec.acks), sorted(ids))
        self.assertEqual({a["outcome"] for a in d.rec.acks}, {"skipped"})
        self.assertEqual({self.kernel.state("batched", i)["state"] for i in ids}, {"acked"})
        self.assertEqual(d.stop().skipped, 3)

    def test_stops_with_auth_stopped_when_its_token_is_revoked_mid_run(self) -> None:
        d = self.start("revoked", lambda e, c: None, wait_seconds=1)
        wait_until(lambda: d.rec.modes, "the driver is running")
        self.kernel.revoke("revoked")
        d.join(60)
        self.assertFalse(d.thread.is_alive())
        self.assertIsInstance(d.error, CapSdkError)
        self.assertEqual(d.error.code, "auth_stopped")
        self.assertIsInstance(d.error.__cause__, CapHttpError)
        self.assertEqual(d.error.__cause__.code, "token_revoked")
        self.assertEqual([e.code for e in d.rec.poll_errors], ["token_revoked", "token_revoked"])


if __name__ == "__main__":
    unittest.main()
