"""run_driver and a human's cancel (feature `cancel`) against the real reference kernel over real sockets,
through a counting proxy (tests/helpers/proxy.py) that records what the driver asked: the running
handler's delivery is watched, the cancel reaches the handler, nothing is posted, renewing stops and the
event is acked `cancelled`; a new message under the `interrupt` policy supersedes the running turn; a
kernel that does not advertise `cancel` is never watched. The watch renews the lease (CAP-CANCEL-9): a
turn of several leases is kept with no renew request while it works, and by renewals when it does not."""
from __future__ import annotations

import threading
import time
import unittest

from cap_sdk import Cancelled
from helpers.drivers import BackgroundDriver, client_for
from helpers.kernel import start_kernel, wait_until
from helpers.proxy import CountingProxy

AGENTS = ["stopme", "selfstop", "unwatched", "interrupted"]
#: Generous: CAP-CANCEL-10 asks for one second; a loaded two-core machine gets five.
SEEN_WITHIN = 5.0


def task(title: str) -> dict:
    return {"taskId": title, "title": title}


class CancelAgainstKernel(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        # 2-second leases renewed every half second: a driver that kept renewing after the cancel would
        # renew several times while the handler below lingers.
        cls.kernel = start_kernel(AGENTS, lease_seconds=2, listeners=[])

    @classmethod
    def tearDownClass(cls) -> None:
        cls.kernel.dispose()

    def setUp(self) -> None:
        self.drivers = []
        self.proxies = []

    def tearDown(self) -> None:
        for d in self.drivers:
            d.stop_signal.set()
            d.join(20)
        for p in self.proxies:
            p.close()

    def proxy(self, **options) -> CountingProxy:
        p = CountingProxy(self.kernel.url, **options)
        self.proxies.append(p)
        return p

    def start(self, agent: str, proxy: CountingProxy, handler, **options) -> BackgroundDriver:
        client = client_for(self.kernel, agent)
        client.base_url = proxy.url
        d = BackgroundDriver(client, handler, renew_at=0.25, **options)
        self.drivers.append(d)
        return d

    def test_a_humans_cancel_stops_the_handler_posts_nothing_stops_renewing_and_acks_cancelled(self) -> None:
        proxy = self.proxy()
        event_id = self.kernel.emit("stopme", "task.assigned", task("a long turn"))
        started, seen, linger = threading.Event(), {}, threading.Event()
        cancels = []

        def handler(event, ctx):
            started.set()
            if ctx.cancelled.wait(60):
                seen["at"] = time.monotonic()
                seen["reason"] = ctx.cancel_reason
            linger.wait(1.5)  # still busy a while after the cancel: no renewal may go out meanwhile
            try:
                ctx.reply("the answer nobody wants any more")
            except Cancelled as err:
                seen["reply"] = err
            return {"outcome": "posted", "messageId": "not posted"}

        d = self.start("stopme", proxy, handler, on_cancel=lambda c: cancels.append((time.monotonic(), c)))
        wait_until(started.is_set, "the handler runs")
        wait_until(lambda: proxy.seen("GET", f"/events/{event_id}/cancellation"), "the running handler's delivery is watched")
        # The first watch answered (renewing the lease) and the next one is out: the lease is being kept.
        wait_until(lambda: len(proxy.seen("GET", f"/events/{event_id}/cancellation")) >= 2, "a watch renewed the lease before the cancel")
        cancelled_at = time.monotonic()
        self.assertEqual(self.kernel.cancel(event_id, "wrong repository"), {"ok": True, "status": "cancelled", "changed": True})

        wait_until(lambda: "at" in seen, "the handler sees ctx.cancelled", timeout=SEEN_WITHIN)
        self.assertEqual(seen["reason"], "wrong repository")
        wait_until(lambda: d.rec.acks, "the cancelled event is acked")
        summary = d.stop()

        self.assertIsInstance(seen["reply"], Cancelled)
        self.assertEqual(d.rec.acks, [{"id": event_id, "duplicate": False, "outcome": "cancelled", "reason": "wrong repository"}])
        acks = proxy.seen("POST", f"/events/{event_id}/ack") + proxy.seen("POST", "/events/ack")
        self.assertEqual(len(acks), 1)
        self.assertEqual(proxy.seen("POST", "/messages"), [])
        self.assertFalse(any(m["author"]["name"] == "stopme" for m in self.kernel.messages()))
        self.assertEqual([c[1]["reason"] for c in cancels], ["wrong repository"])
        self.assertEqual(cancels[0][1]["event"]["id"], event_id)
        late = [r for r in proxy.seen("POST", f"/events/{event_id}/renew") if r["at"] > cancels[0][0] + 0.2]
        self.assertEqual(late, [])
        state = self.kernel.state("stopme", event_id)
        self.assertEqual((state["state"], state["cancelReason"], state["cancelledBy"]["kind"]), ("cancelled", "wrong repository", "human"))
        self.assertIsNotNone(state["ackedAt"])
        self.assertEqual((summary.cancelled, summary.handled, summary.failures, summary.released), (1, 0, 0, 0))
        self.assertGreater(seen["at"], cancelled_at)

    def test_the_agents_own_cancel_through_the_client_reaches_its_running_handler(self) -> None:
        proxy = self.proxy()
        event_id = self.kernel.emit("selfstop", "task.assigned", task("stop myself"))
        client = client_for(self.kernel, "selfstop")
        seen = {}

        def handler(event, ctx):
            seen["answer"] = client.cancel_event(event["id"], reason="changed my mind")
            seen["set"] = ctx.cancelled.wait(SEEN_WITHIN)
            seen["reason"] = ctx.cancel_reason

        d = self.start("selfstop", proxy, handler)
        wait_until(lambda: d.rec.acks, "acked")
        summary = d.stop()
        self.assertEqual(seen, {"answer": {"ok": True, "status": "cancelled", "changed": True}, "set": True, "reason": "changed my mind"})
        self.assertEqual(d.rec.acks[0]["outcome"], "cancelled")
        self.assertEqual(self.kernel.state("selfstop", event_id)["cancelledBy"]["kind"], "agent")
        self.assertEqual(summary.cancelled, 1)

    def test_a_new_message_under_the_interrupt_policy_supersedes_the_running_turn(self) -> None:
        self.kernel.set_double_texting("interrupted", "interrupt")
        proxy = self.proxy()
        started, superseded, answered = threading.Event(), {}, []

        def mention(event, ctx):
            if "first" in event["payload"]["content"]:
                started.set()
                if ctx.cancelled.wait(60):
                    superseded["reason"] = ctx.cancel_reason
                return None
            answered.append(event)
            ctx.reply("on it")

        d = self.start("interrupted", proxy, {"mention.received": mention})
        self.kernel.say("@interrupted first, a long one")
        wait_until(started.is_set, "the first turn runs")
        first_id = wait_until(lambda: next((e["id"] for e in self.kernel.queue("interrupted") if e["state"] == "leased"), None), "the first turn is held")
        self.kernel.say("@interrupted no wait, do this instead")
        wait_until(lambda: "reason" in superseded, "the first turn is told it was superseded", timeout=SEEN_WITHIN)
        wait_until(lambda: answered and len(d.rec.acks) == 2, "the second mention answered and both acked")
        summary = d.stop()
        self.assertEqual(superseded["reason"], "superseded")
        self.assertEqual(answered[0]["supersedes"], [first_id])
        self.assertEqual([(a["id"], a["outcome"]) for a in d.rec.acks], [(first_id, "cancelled"), (answered[0]["id"], "posted")])
        self.assertEqual(d.rec.acks[0]["reason"], "superseded")
        self.assertEqual(self.kernel.state("interrupted", first_id)["cancelledBy"]["kind"], "kernel")
        self.assertEqual((summary.cancelled, summary.handled), (1, 1))

    def test_never_watches_a_kernel_that_does_not_advertise_cancel(self) -> None:
        proxy = self.proxy(hide_features=["cancel"])
        event_id = self.kernel.emit("unwatched", "task.assigned", task("plain"))
        release = threading.Event()
        d = self.start("unwatched", proxy, lambda e, c: release.wait(30))
        wait_until(lambda: proxy.seen("POST", f"/events/{event_id}/renew"), "the handler has run half a lease")
        wait_until(lambda: len(proxy.seen("POST", f"/events/{event_id}/renew")) >= 2, "a second renewal: well past the watch's start")
        release.set()
        wait_until(lambda: d.rec.acks, "acked")
        summary = d.stop()
        self.assertTrue(proxy.seen("GET", "/info"))  # the driver learned its features through the proxy
        self.assertEqual(proxy.seen("GET", "/cancellation"), [])
        self.assertEqual(d.rec.acks[0]["outcome"], "acknowledged")
        self.assertEqual((summary.handled, summary.cancelled), (1, 0))


class WatchKeepsTheLease(unittest.TestCase):
    """A running turn of about three leases, with the watch as its only renewal and with the watch down."""

    LEASE = 3

    @classmethod
    def setUpClass(cls) -> None:
        cls.kernel = start_kernel(["steady", "unwatchable"], lease_seconds=cls.LEASE, listeners=[])

    @classmethod
    def tearDownClass(cls) -> None:
        cls.kernel.dispose()

    def setUp(self) -> None:
        self.drivers, self.proxies = [], []

    def tearDown(self) -> None:
        for d in self.drivers:
            d.stop_signal.set()
            d.join(20)
        for p in self.proxies:
            p.close()

    def run_turn(self, agent: str, enough, what: str, **proxy_options):
        proxy = CountingProxy(self.kernel.url, **proxy_options)
        self.proxies.append(proxy)
        event_id = self.kernel.emit(agent, "task.assigned", task("three leases long"))
        ran, done = [], threading.Event()

        def handler(event, ctx):
            ran.append(event["id"])
            done.wait(60)

        client = client_for(self.kernel, agent)
        client.base_url = proxy.url
        d = BackgroundDriver(client, handler)
        self.drivers.append(d)
        wait_until(lambda: ran, "the handler runs")
        wait_until(lambda: enough(d, proxy, event_id), what, timeout=60)
        done.set()
        wait_until(lambda: d.rec.acks, "acked")
        summary = d.stop()
        # Kept: never redelivered, never lost, acked once, and the kernel took the ack.
        self.assertEqual(ran, [event_id])
        self.assertEqual((d.rec.lost, d.rec.acks), ([], [{"id": event_id, "duplicate": False, "outcome": "acknowledged"}]))
        self.assertEqual(len(proxy.seen("POST", f"/events/{event_id}/ack") + proxy.seen("POST", "/events/ack")), 1)
        self.assertEqual(self.kernel.state(agent, event_id)["state"], "acked")
        self.assertEqual((summary.handled, summary.released, summary.failures), (1, 0, 0))
        return d, proxy, event_id

    def test_while_the_watch_works_the_lease_is_kept_with_no_renew_request(self) -> None:
        # Five watch answers, each held until a third of the lease is left: over three leases.
        d, proxy, event_id = self.run_turn("steady", lambda d, p, e: len(d.rec.renews) >= 5, "five watch answers")
        self.assertEqual(proxy.seen("POST", "/renew"), [])
        self.assertGreaterEqual(len(proxy.seen("GET", f"/events/{event_id}/cancellation")), 5)
        self.assertEqual(set(d.rec.renews), {event_id})  # each watch answer reported as a renewal
        self.assertEqual([e for e in d.rec.errors if e["stage"] in ("watch", "renew")], [])

    def test_when_the_watch_route_fails_renewals_keep_the_lease(self) -> None:
        # Four renewals at half a lease each, after the watch has failed: two leases and more.
        d, proxy, event_id = self.run_turn(
            "unwatchable", lambda d, p, e: len(p.seen("POST", f"/events/{e}/renew")) >= 4, "four renewals", fail={"/cancellation": 503}
        )
        self.assertTrue(proxy.seen("GET", f"/events/{event_id}/cancellation"))  # it was tried
        self.assertIn("watch", {e["stage"] for e in d.rec.errors})


if __name__ == "__main__":
    unittest.main()
