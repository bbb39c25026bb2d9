"""run_driver's behaviours around the queue verbs the kernel advertises (release, batch-ack, poll-replay),
lease keeping of waiting events, poll-mode fallbacks, hooks and signals, against an in-process fake client
(tests/helpers/fake_client.py says why). Every wait is a deadline poll."""
from __future__ import annotations

import os
import time
import signal
import threading
import unittest
from datetime import datetime, timezone

from cap_sdk import CapHttpError, CapSdkError, MemoryHandledStore, StopSignal, reply_key, run_driver
from helpers.fake_client import FakeClient, event, not_found
from helpers.kernel import wait_until


def background(client, handlers, **options):
    stop = StopSignal()
    box = {}
    options.setdefault("poll_interval", 0.05)
    options.setdefault("wait_seconds", 1)

    def target():
        try:
            box["summary"] = run_driver(client, handlers, stop=stop, handle_signals=False, **options)
        except BaseException as err:  # noqa: BLE001
            box["error"] = err

    thread = threading.Thread(target=target, daemon=True)
    thread.start()

    def finish():
        stop.set()
        thread.join(20)
        assert not thread.is_alive(), "the driver did not stop"
        if "error" in box:
            raise box["error"]
        return box["summary"]

    return finish, box


class QueueVerbs(unittest.TestCase):
    def test_batches_the_acks_that_are_ready_together(self) -> None:
        store = MemoryHandledStore()
        store.set("dup", {"outcome": "posted", "messageId": "m"})
        client = FakeClient(["batch-ack"], [[event("dup"), event("odd", "mystery"), event("ok")]])
        finish, _ = background(client, {"task.assigned": lambda e, c: None}, store=store)
        wait_until(lambda: client.named("ack_many") and len(client.named("ack") + client.named("ack_many")) >= 2, "the acks went out")
        summary = finish()
        # dup + odd need no handler: one batch before "ok" runs; "ok" alone afterwards.
        self.assertEqual(client.named("ack_many"), [("ack_many", ["dup", "odd"])])
        self.assertEqual([c[1:] for c in client.named("ack")], [("ok", {"outcome": "acknowledged"})])
        self.assertEqual((summary.duplicates, summary.skipped, summary.handled), (1, 1, 1))

    def test_falls_back_to_single_acks_when_the_batch_route_is_missing(self) -> None:
        client = FakeClient(["batch-ack"], [[event("a", "x"), event("b", "y")]])
        client.ack_many_error = not_found("POST /events/ack")
        acks = []
        finish, _ = background(client, {}, on_ack=lambda a: acks.append(a["event"]["id"]))
        wait_until(lambda: len(acks) == 2, "both events acked one by one")
        finish()
        self.assertEqual([c[1] for c in client.named("ack")], ["a", "b"])

    def test_releases_a_failed_event_for_the_circuits_delay_and_the_rest_of_the_batch_at_once(self) -> None:
        client = FakeClient(["release"], [[event("bad"), event("next", attempts=2)]])
        circuits = []

        def fail(e, c):
            raise RuntimeError("429 Too Many Requests")

        finish, _ = background(client, fail, on_circuit=circuits.append)
        wait_until(lambda: len(client.named("release")) == 2, "both events released")
        summary = finish()
        self.assertEqual(circuits[0]["failure_class"], "rate_limit")
        delay = circuits[0]["delay"]
        self.assertTrue(60 <= delay < 72, delay)
        self.assertEqual(client.named("release"), [("release", "bad", 1, -(-delay // 1)), ("release", "next", 2, 0)])
        self.assertEqual(client.named("ack"), [])
        self.assertEqual((summary.failures, summary.returned), (1, 2))

    def test_does_not_release_where_the_kernel_cannot(self) -> None:
        client = FakeClient([], [[event("bad")]])
        errors = []
        finish, _ = background(client, lambda e, c: 1 / 0, on_error=errors.append)
        wait_until(lambda: errors, "the handler failed")
        finish()
        self.assertEqual(client.named("release"), [])

    def test_releases_an_unfinished_handler_when_the_shutdown_grace_ends(self) -> None:
        client = FakeClient(["release"], [[event("slow")]])
        started = threading.Event()
        seen = {}

        def slow(e, ctx):
            started.set()
            ctx.cancelled.wait(30)
            seen["reason"] = ctx.cancelled.reason

        finish, _ = background(client, slow, shutdown_timeout=0.1)
        wait_until(started.is_set, "the handler runs")
        summary = finish()
        self.assertEqual(summary.released, 1)
        self.assertEqual(client.named("release"), [("release", "slow", 1, 0)])
        wait_until(lambda: "reason" in seen, "the handler saw the cancel")
        self.assertIsInstance(seen["reason"], CapSdkError)
        self.assertEqual(seen["reason"].code, "aborted")

    def test_sends_a_poll_id_kept_after_a_failed_poll_and_renewed_after_a_good_one(self) -> None:
        client = FakeClient(["poll-replay"], [CapSdkError("network", "cut"), [event("e")]])
        finish, _ = background(client, lambda e, c: None)
        wait_until(lambda: len(client.named("poll")) >= 3 and client.named("ack"), "three polls and the ack")
        finish()
        ids = [c[1] for c in client.named("poll")]
        self.assertIsNotNone(ids[0])
        self.assertEqual(ids[0], ids[1])  # the failed poll's id is asked again
        self.assertNotEqual(ids[1], ids[2])

    def test_sends_no_poll_id_to_a_kernel_without_poll_replay(self) -> None:
        client = FakeClient(["long-poll"], [[event("e")]])
        finish, _ = background(client, lambda e, c: None)
        wait_until(lambda: client.named("ack"), "the ack")
        finish()
        self.assertEqual({c[1] for c in client.named("poll")}, {None})


class Leases(unittest.TestCase):
    def test_renews_the_events_waiting_their_turn_not_only_the_running_one(self) -> None:
        client = FakeClient(["renew"], [[event("first"), event("second", attempts=3)]], lease_seconds=1)
        release = threading.Event()

        def handler(e, c):
            if e["id"] == "first":
                release.wait(30)

        finish, _ = background(client, handler, renew_at=0.1)
        wait_until(lambda: {c[1] for c in client.named("renew")} >= {"first", "second"}, "both events renewed")
        release.set()
        wait_until(lambda: len(client.named("ack")) == 2, "both acked")
        finish()
        self.assertIn(("renew", "second", 3), client.named("renew"))

    def test_renews_a_replayed_batch_by_what_is_left_of_its_lease(self) -> None:
        # A replayed poll hands back a delivery claimed 29 s into its 30 s lease: one second is left.
        replayed = dict(event("late"), leaseExpiresAt=datetime.fromtimestamp(time.time() + 1, timezone.utc).isoformat())
        client = FakeClient(["renew"], [[replayed]], lease_seconds=30)
        release = threading.Event()
        finish, _ = background(client, lambda e, c: release.wait(30), renew_at=0.5)
        # Renewed within what is left, not after half a whole lease (15 s).
        wait_until(lambda: client.named("renew"), "the replayed delivery is renewed", timeout=5)
        release.set()
        wait_until(lambda: client.named("ack"), "acked")
        finish()

    def test_renews_nothing_where_the_kernel_cannot(self) -> None:
        client = FakeClient([], [[event("a")]], lease_seconds=1)
        release = threading.Event()
        finish, _ = background(client, lambda e, c: release.wait(0.5), renew_at=0.1)
        wait_until(lambda: client.named("ack"), "acked")
        finish()
        self.assertEqual(client.named("renew"), [])


class Loop(unittest.TestCase):
    def test_the_reply_key_is_the_typescript_sdks(self) -> None:
        # sdk-ts/src/internal/turn.ts replyKey("evt_1/ä", 0), printed by node.
        self.assertEqual(reply_key("evt_1/ä", 0), "cap-sdk-reply:d3544c49:0:evt_1%2F%C3%A4")

    def test_switches_to_interval_polling_when_the_kernel_rejects_wait_seconds(self) -> None:
        bad_wait = CapHttpError(400, "GET /events", code="invalid_query", message="waitSeconds")
        client = FakeClient(["long-poll"], [bad_wait])
        modes = []
        finish, _ = background(client, lambda e, c: None, on_poll_mode=modes.append)
        wait_until(lambda: len(modes) >= 2, "the mode changed")
        finish()
        self.assertEqual([m["mode"] for m in modes][:2], ["long-poll", "interval"])

    def test_against_a_kernel_without_info_it_learns_that_wait_seconds_is_ignored(self) -> None:
        client = FakeClient(None, [[event("a")]])
        client.ignores_wait = True
        modes = []
        finish, _ = background(client, lambda e, c: None, on_poll_mode=modes.append, poll_interval=0.05)
        wait_until(lambda: len(modes) >= 2, "the fallback to interval polling")
        finish()
        self.assertEqual(modes[0], {"mode": "long-poll", "reason": "no /info; trying long-poll"})
        self.assertEqual(modes[1]["mode"], "interval")
        self.assertIn("waitSeconds is ignored", modes[1]["reason"])
        self.assertEqual(len(client.named("info")), 1)  # a 404 settles it: not asked again
        self.assertEqual(client.named("release") + client.named("ack_many"), [])  # nothing unadvertised

    def test_a_hook_that_raises_does_not_stop_the_driver(self) -> None:
        client = FakeClient([], [[event("a")], [event("b")]])
        acks = []

        def bad_hook(a):
            acks.append(a["event"]["id"])
            raise ValueError("hook bug")

        finish, _ = background(client, lambda e, c: None, on_ack=bad_hook)
        wait_until(lambda: acks == ["a", "b"], "both acked")
        self.assertEqual(finish().handled, 2)

    def test_refuses_an_unknown_hook(self) -> None:
        with self.assertRaises(TypeError):
            run_driver(FakeClient([]), {}, on_akc=print)

    def test_replies_thread_under_the_message_with_the_event_derived_key(self) -> None:
        client = FakeClient([], [[event("e1")]])
        acks = []

        def handler(e, ctx):
            ctx.reply("one")
            ctx.reply("two", reply_to_message_id=None)

        finish, _ = background(client, handler, on_ack=lambda a: acks.append(a["result"]))
        wait_until(lambda: acks, "acked")
        finish()
        self.assertEqual([c[3] for c in client.named("post")], [reply_key("e1", 0), reply_key("e1", 1)])
        self.assertEqual(acks[0]["outcome"], "posted")

    def test_a_plain_threading_event_stops_it_and_interrupts_the_long_poll(self) -> None:
        client = FakeClient(["long-poll"], [])
        stop = threading.Event()
        box = {}
        thread = threading.Thread(target=lambda: box.update(s=run_driver(client, {}, stop=stop, handle_signals=False, wait_seconds=20)))
        thread.start()
        wait_until(lambda: client.named("poll"), "the driver is long-polling")
        stop.set()
        thread.join(5)  # the fake poll waits 20 s unless interrupted
        self.assertFalse(thread.is_alive())
        self.assertEqual(box["s"].polls, 1)

    def test_stops_gracefully_on_sigterm_in_the_main_thread(self) -> None:
        client = FakeClient(["long-poll"], [[event("a")]])
        acked = threading.Event()
        timer = threading.Thread(target=lambda: (acked.wait(10), os.kill(os.getpid(), signal.SIGTERM)), daemon=True)
        timer.start()
        before = signal.getsignal(signal.SIGTERM)
        summary = run_driver(client, lambda e, c: None, wait_seconds=1, on_ack=lambda a: acked.set())
        self.assertEqual(summary.handled, 1)
        self.assertIs(signal.getsignal(signal.SIGTERM), before)  # the previous handler is back


if __name__ == "__main__":
    unittest.main()
