"""run_driver and cancellation (feature `cancel`) against the in-process fake client: the watch of a
running handler, a renew answered 409 with `details.cancelled`, a waiting event cancelled, a handler
that ignores or raises, the watch's failures. The real kernel's end-to-end runs are in
test_driver_kernel.py; these cover the answers a real kernel will not give on demand. Every wait is a
deadline poll."""
from __future__ import annotations

import threading
import time
import unittest

from cap_sdk import Cancelled, CapHttpError, CapSdkError, run_driver
from helpers.fake_client import FakeClient, event
from helpers.kernel import wait_until
from test_driver_units import background

CANCEL = ["cancel", "renew", "batch-ack"]


class Recorded:
    def __init__(self) -> None:
        self.acks, self.cancels, self.errors, self.lost, self.circuits = [], [], [], [], []

    def hooks(self) -> dict:
        return {
            "on_ack": lambda a: self.acks.append((a["event"]["id"], a["result"])),
            "on_cancel": lambda c: self.cancels.append((c["event"]["id"], c["reason"])),
            "on_error": self.errors.append,
            "on_lease_lost": lambda l: self.lost.append(l["event"]["id"]),
            "on_circuit": self.circuits.append,
        }


class CancelWhileRunning(unittest.TestCase):
    def test_the_watch_tells_the_handler_which_stops_posts_nothing_and_is_acked_cancelled(self) -> None:
        client = FakeClient(CANCEL, [[event("e1")]], lease_seconds=1)
        rec = Recorded()
        started, seen = threading.Event(), {}

        def handler(e, ctx):
            started.set()
            seen["set"] = ctx.cancelled.wait(30)
            seen["reason"], seen["cause"] = ctx.cancel_reason, ctx.cancelled.reason
            try:
                ctx.reply("too late")
            except Cancelled as err:
                seen["raised"] = err
            return {"outcome": "posted", "messageId": "never"}

        finish, _ = background(client, handler, renew_at=0.1, **rec.hooks())
        wait_until(started.is_set, "the handler runs")
        wait_until(lambda: client.named("watch"), "the running handler's delivery is watched")
        client.cancel("e1", "wrong repository")
        wait_until(lambda: rec.acks, "the cancelled event is acked")
        renews = len(client.named("renew"))
        summary = finish()
        self.assertTrue(seen["set"])
        self.assertEqual(seen["reason"], "wrong repository")
        self.assertIsInstance(seen["cause"], Cancelled)
        self.assertEqual((seen["raised"].reason, seen["raised"].event_id), ("wrong repository", "e1"))
        self.assertEqual(client.named("post"), [])
        self.assertEqual(rec.acks, [("e1", {"outcome": "cancelled", "reason": "wrong repository"})])
        self.assertEqual(rec.cancels, [("e1", "wrong repository")])
        self.assertEqual(client.named("watch")[0][1:], ("e1", 1, 20))
        self.assertEqual(len(client.named("renew")), renews)  # no renewal once cancelled
        self.assertEqual((summary.cancelled, summary.handled, summary.failures, summary.released), (1, 0, 0, 0))
        self.assertEqual(rec.circuits, [])

    def test_a_handler_that_raises_after_the_cancel_is_acked_cancelled_not_counted_a_failure(self) -> None:
        client = FakeClient(CANCEL, [[event("e1")]])
        rec = Recorded()

        def handler(e, ctx):
            ctx.cancelled.wait(30)
            ctx.reply("stopped?")  # raises Cancelled, which the handler lets propagate

        finish, _ = background(client, handler, **rec.hooks())
        wait_until(lambda: client.named("watch"), "the watch")
        client.cancel("e1")
        wait_until(lambda: rec.acks, "acked")
        summary = finish()
        self.assertEqual(rec.acks, [("e1", {"outcome": "cancelled", "reason": "requested"})])
        self.assertEqual((summary.cancelled, summary.failures), (1, 0))
        self.assertEqual([e["stage"] for e in rec.errors], [])
        self.assertEqual(client.named("release"), [])

    def test_waits_for_a_handler_that_ignores_the_cancel_then_acks_cancelled(self) -> None:
        client = FakeClient(CANCEL, [[event("e1")]])
        rec = Recorded()
        finish_handler = threading.Event()
        finish, _ = background(client, lambda e, c: finish_handler.wait(30), **rec.hooks())
        wait_until(lambda: client.named("watch"), "the watch")
        client.cancel("e1", "superseded")
        wait_until(lambda: rec.cancels, "the driver learned of the cancel")
        time.sleep(0.2)  # give a wrong driver the chance to ack before the handler returned
        self.assertEqual(rec.acks, [])
        finish_handler.set()
        wait_until(lambda: rec.acks, "acked once the handler returned")
        finish()
        self.assertEqual(rec.acks, [("e1", {"outcome": "cancelled", "reason": "superseded"})])

    def test_acks_cancelled_once_the_grace_has_passed_when_the_handler_does_not_stop(self) -> None:
        client = FakeClient(CANCEL, [[event("e1")], [event("e2")]])
        rec = Recorded()
        never, ran = threading.Event(), []

        def handler(e, ctx):
            ran.append(e["id"])
            if e["id"] == "e1":
                never.wait(30)

        finish, _ = background(client, handler, shutdown_timeout=0.3, **rec.hooks())
        wait_until(lambda: client.named("watch"), "the watch")
        client.cancel("e1")
        wait_until(lambda: len(rec.acks) == 2, "e1 acked cancelled after the grace, and the driver went on to e2")
        summary = finish()
        never.set()
        self.assertEqual(rec.acks, [("e1", {"outcome": "cancelled", "reason": "requested"}), ("e2", {"outcome": "acknowledged"})])
        self.assertEqual(ran, ["e1", "e2"])
        self.assertEqual((summary.cancelled, summary.handled, summary.released), (1, 1, 0))

    def test_a_renew_answered_409_cancelled_is_a_cancel_even_without_a_watch(self) -> None:
        client = FakeClient(["renew"], [[event("e1")]], lease_seconds=1)
        rec = Recorded()
        seen = {}

        def handler(e, ctx):
            client.cancel("e1", "requested")
            seen["set"] = ctx.cancelled.wait(30)
            seen["reason"] = ctx.cancel_reason

        finish, _ = background(client, handler, renew_at=0.1, **rec.hooks())
        wait_until(lambda: rec.acks, "acked")
        summary = finish()
        self.assertEqual(seen, {"set": True, "reason": "requested"})
        self.assertEqual(rec.acks, [("e1", {"outcome": "cancelled", "reason": "requested"})])
        self.assertEqual((rec.cancels, rec.lost), ([("e1", "requested")], []))
        self.assertEqual(client.named("watch"), [])  # `cancel` not advertised: no watch
        self.assertEqual(summary.cancelled, 1)

    def test_a_cancel_during_the_shutdown_grace_is_still_acked_cancelled(self) -> None:
        client = FakeClient(CANCEL, [[event("e1")]])
        rec = Recorded()
        finish, _ = background(client, lambda e, c: threading.Event().wait(30), shutdown_timeout=0.3, **rec.hooks())
        wait_until(lambda: client.named("watch"), "the watch")
        client.cancel("e1")
        wait_until(lambda: rec.cancels, "the cancel")
        summary = finish()  # the handler never returns: given up after the grace
        self.assertEqual(rec.acks, [("e1", {"outcome": "cancelled", "reason": "requested"})])
        self.assertEqual((summary.cancelled, summary.released), (1, 0))
        self.assertEqual(client.named("release"), [])


class CancelWaiting(unittest.TestCase):
    def test_an_event_cancelled_while_it_waits_its_turn_is_acked_cancelled_without_running(self) -> None:
        client = FakeClient(CANCEL, [[event("first"), event("second")]], lease_seconds=1)
        rec = Recorded()
        ran, release = [], threading.Event()

        def handler(e, ctx):
            ran.append(e["id"])
            if e["id"] == "first":
                client.cancel("second", "superseded")
                release.wait(30)

        finish, _ = background(client, handler, renew_at=0.1, **rec.hooks())
        wait_until(lambda: rec.cancels, "the renewal of the waiting event says it was cancelled")
        release.set()
        wait_until(lambda: len(rec.acks) == 2, "both acked")
        summary = finish()
        self.assertEqual(ran, ["first"])
        self.assertEqual(sorted(rec.acks), [("first", {"outcome": "acknowledged"}),
                                            ("second", {"outcome": "cancelled", "reason": "superseded"})])
        self.assertEqual((summary.handled, summary.cancelled), (1, 1))


class NoWatch(unittest.TestCase):
    def test_no_watch_where_the_kernel_does_not_offer_cancel(self) -> None:
        client = FakeClient(["renew", "release"], [[event("e1")]])
        release = threading.Event()
        finish, _ = background(client, lambda e, c: release.wait(30))
        time.sleep(0.5)  # several watch delays: a wrong driver would have watched by now
        release.set()
        wait_until(lambda: client.named("ack"), "acked")
        finish()
        self.assertEqual(client.named("watch"), [])

    def test_a_quick_handler_costs_no_watch_request(self) -> None:
        client = FakeClient(CANCEL, [[event("a"), event("b")]])
        finish, _ = background(client, lambda e, c: None)
        wait_until(lambda: client.named("ack_many") or len(client.named("ack")) == 2, "acked")
        self.assertEqual(finish().handled, 2)
        self.assertEqual(client.named("watch"), [])


class WatchFailures(unittest.TestCase):
    def run_with_watch_error(self, error: Exception, hold: float = 1.5):
        client = FakeClient(CANCEL, [[event("e1")]])
        client.watch_error = error
        rec = Recorded()
        release = threading.Event()
        finish, _ = background(client, lambda e, c: release.wait(30), **rec.hooks())
        wait_until(lambda: client.named("watch"), "the watch")
        time.sleep(hold)
        release.set()
        wait_until(lambda: rec.acks, "acked")
        return client, rec, finish()

    def test_a_missing_watch_route_turns_watching_off_for_the_run(self) -> None:
        client, rec, _ = self.run_with_watch_error(CapHttpError(404, "GET /events/{id}/cancellation", code="not_found"), hold=0.3)
        self.assertEqual(len(client.named("watch")), 1)
        self.assertEqual(rec.acks, [("e1", {"outcome": "acknowledged"})])

    def test_a_failing_watch_is_retried_after_a_growing_pause_never_in_a_tight_loop(self) -> None:
        client, rec, _ = self.run_with_watch_error(CapSdkError("network", "refused"))
        self.assertLessEqual(len(client.named("watch")), 3)  # at 0.25 s, then 1 s later: 2 in 1.5 s
        self.assertEqual({e["stage"] for e in rec.errors}, {"watch"})
        self.assertEqual(rec.acks, [("e1", {"outcome": "acknowledged"})])

    def test_a_watch_answered_at_once_without_a_cancel_is_not_asked_again_at_once(self) -> None:
        client = FakeClient(CANCEL, [[event("e1")]])
        client.ignores_wait = True
        release = threading.Event()
        finish, _ = background(client, lambda e, c: release.wait(30))
        wait_until(lambda: client.named("watch"), "the watch")
        time.sleep(1.5)
        release.set()
        wait_until(lambda: client.named("ack_many") or client.named("ack"), "acked")
        finish()
        self.assertLessEqual(len(client.named("watch")), 3)

    def test_a_watch_answered_409_is_a_lost_lease_not_acked(self) -> None:
        client, rec = FakeClient(CANCEL, [[event("e1")]]), Recorded()
        client.watch_error = CapHttpError(409, "GET /events/{id}/cancellation", code="lease_lost")
        seen, done = {}, threading.Event()

        def handler(e, ctx):
            ctx.cancelled.wait(30)
            seen["reason"] = ctx.cancelled.reason
            done.wait(30)  # still busy: the driver gives the turn up without waiting

        finish, _ = background(client, handler, **rec.hooks())
        wait_until(lambda: rec.lost, "the lease is lost")
        summary = finish()
        self.assertEqual(rec.acks, [])
        self.assertEqual(summary.released, 1)
        done.set()
        wait_until(lambda: "reason" in seen, "the handler saw it")
        self.assertEqual(seen["reason"].code, "lease_lost")


class WatchRenews(unittest.TestCase):
    """A watch that ends without a cancel renews the lease (CAP-CANCEL-9): while it works the driver sends
    no renewal of its own, and when it stops working the renew timer takes over before the lease ends."""

    def run_for_leases(self, client: FakeClient, until, what: str, **options):
        rec = Recorded()
        renewed = []
        done = threading.Event()
        finish, _ = background(client, lambda e, c: done.wait(60), on_renew=lambda r: renewed.append(r), **options, **rec.hooks())
        wait_until(lambda: client.named("watch"), "the watch")
        wait_until(until, what, timeout=30)
        done.set()
        wait_until(lambda: rec.acks, "acked")
        summary = finish()
        self.assertEqual(rec.acks, [("e1", {"outcome": "acknowledged"})])
        self.assertEqual(client.lapsed, [])  # the lease never ended while the driver held the event
        self.assertEqual((summary.handled, summary.released, summary.cancelled), (1, 0, 0))
        return rec, renewed

    def test_while_the_watch_works_no_renewal_is_sent_and_each_answer_counts_as_one(self) -> None:
        client = FakeClient(CANCEL, [[event("e1")]], lease_seconds=2)
        rec, renewed = self.run_for_leases(client, lambda: len(client.named("watch-renewed")) >= 3, "three leases' worth of watch answers")
        self.assertEqual(client.named("renew"), [])
        self.assertEqual(rec.errors, [])
        # Each answer is reported as a renewal, with the lease end the kernel answered.
        self.assertGreaterEqual(len(renewed), 3)
        self.assertEqual({r["event"]["id"] for r in renewed}, {"e1"})
        self.assertTrue(all(isinstance(r["lease_expires_at"], str) and r["lease_expires_at"].endswith("Z") for r in renewed))

    def test_the_renew_timer_runs_until_the_watch_answers(self) -> None:
        # Renewing every tenth of a lease: the timer fires before the watch starts a quarter second in.
        client = FakeClient(CANCEL, [[event("e1")]], lease_seconds=2)
        self.run_for_leases(client, lambda: len(client.named("watch-renewed")) >= 3, "three watch answers", renew_at=0.05)
        with client.lock:
            calls = [c[0] for c in client.calls]
        first_answer = calls.index("watch-renewed")
        self.assertGreaterEqual(calls[:first_answer].count("renew"), 1)
        self.assertEqual(calls[first_answer:].count("renew"), 0)

    def test_when_the_watch_starts_failing_renewals_take_over_from_the_last_lease_end(self) -> None:
        client = FakeClient(CANCEL, [[event("e1")]], lease_seconds=2)

        def failing_after_an_answer():
            if client.named("watch-renewed") and client.watch_error is None:
                client.watch_error = CapHttpError(503, "GET /events/{id}/cancellation", code="unavailable")
            return len(client.named("renew")) >= 4

        rec, _ = self.run_for_leases(client, failing_after_an_answer, "the watch fails and four renewals go out")
        self.assertIn("watch", {e["stage"] for e in rec.errors})
        with client.lock:
            calls = [c[0] for c in client.calls]
        self.assertEqual(calls[: calls.index("watch-renewed")].count("renew"), 0)  # none while it worked

    def test_a_watch_that_does_not_answer_before_the_lease_nearly_ends_is_backed_by_a_renewal(self) -> None:
        # The request hangs (or the kernel's watch does not renew): the lease is renewed anyway, late.
        client = FakeClient(CANCEL, [[event("e1")]], lease_seconds=2)
        client.watch_mode = "hangs"
        self.run_for_leases(client, lambda: len(client.named("renew")) >= 3, "renewals while the watch hangs")
        self.assertEqual(client.named("watch-renewed"), [])
        self.assertEqual(len(client.named("watch")), 1)  # still the first request: it was in flight throughout

    def test_a_kernel_whose_watch_does_not_renew_gets_renewals_for_the_rest_of_the_run(self) -> None:
        # Its watch answers in time but leaves the lease where it was: not a renewal, and no more counted on.
        client = FakeClient(CANCEL, [[event("e1")], [event("e2")]], lease_seconds=2)
        client.watch_mode = "stale"
        rec = Recorded()
        renewed, done = [], {"e1": threading.Event(), "e2": threading.Event()}
        finish, _ = background(client, lambda e, c: done[e["id"]].wait(60), on_renew=renewed.append, renew_at=0.25, **rec.hooks())
        renews_of = lambda event_id: [c for c in client.named("renew") if c[1] == event_id]  # noqa: E731
        wait_until(lambda: len(client.named("watch")) >= 2, "a watch answered, and the next one sent")
        wait_until(lambda: len(renews_of("e1")) >= 3, "renewals of e1 while its watches go on")
        done["e1"].set()
        wait_until(lambda: renews_of("e2"), "a renewal of e2, the next batch's event")
        done["e2"].set()
        wait_until(lambda: len(rec.acks) == 2, "both turns acked")
        finish()
        self.assertEqual(client.lapsed, [])
        self.assertEqual(client.named("watch-renewed"), [])
        # e2 was renewed on the timer while its first watch was out: that watch was not counted on.
        with client.lock:
            calls = [c[:2] for c in client.calls]
        before = calls[: calls.index(("renew", "e2"))]
        self.assertEqual(before.count(("watch", "e2")), 1)
        # Each hook call is a renewal the driver sent: a watch answer that renewed nothing is none.
        self.assertEqual(len(renewed), len(client.named("renew")))


class Refuses(unittest.TestCase):
    def test_on_cancel_is_a_known_hook(self) -> None:
        stop = threading.Event()
        stop.set()
        summary = run_driver(FakeClient([]), {}, stop=stop, handle_signals=False, on_cancel=print)
        self.assertEqual(summary.cancelled, 0)


if __name__ == "__main__":
    unittest.main()
