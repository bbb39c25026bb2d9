"""The backoff before the next poll after a batch the driver could not settle, against the in-process fake
client: the delays (`poll_interval`, doubling, the agent's offset, never under a Retry-After), what counts
as trouble (a failed ack, a batch ack it cannot read, an acked event delivered again) and what does not
(404 event_not_found; a clean batch, which resets it). The same behaviour against real sockets is
test_wrong_servers.py. Mirrors sdk-ts/test/unit/driver-backoff.test.ts."""
from __future__ import annotations

import unittest

from cap_sdk import CapHttpError, CapSdkError, MemoryHandledStore
from cap_sdk._backoff import Backoff
from cap_sdk._fingerprint import stable_jitter
from helpers.fake_client import FakeClient, event
from helpers.kernel import wait_until
from test_driver_units import background

INTERVAL = 0.05
JITTER = stable_jitter(FakeClient.fingerprint)


def j(seconds: float) -> float:
    """A delay as the driver computes it for the fake client's agent."""
    return round(seconds * 1000 * (1 + JITTER)) / 1000


class BackoffTable(unittest.TestCase):
    # (name, Retry-After of each failure in a row, want): base 1 s, offset 0.1, ceiling 8 s.
    TABLE = [
        ("the first failure waits the base", [0], 1.1),
        ("each failure in a row doubles it", [0, 0, 0], 4.4),
        ("the ceiling bounds it (plus the offset)", [0] * 6, 8.8),
        ("a longer Retry-After wins", [0, 20], 20),
        ("a shorter Retry-After does not shorten it", [0, 0.5], 2.2),
    ]

    def test_delays(self) -> None:
        for name, at_least, want in self.TABLE:
            with self.subTest(name):
                backoff = Backoff(1.0, 0.1, 8.0)
                last = 0.0
                for seconds in at_least:
                    last = backoff.next(seconds)
                self.assertAlmostEqual(last, want)
                self.assertEqual(backoff.failures, len(at_least))

    def test_starts_from_the_base_again_after_a_reset(self) -> None:
        backoff = Backoff(1.0, 0.0, 8.0)
        backoff.next()
        backoff.next()
        backoff.reset()
        self.assertEqual((backoff.failures, backoff.next()), (0, 1.0))


class FailingAcks(FakeClient):
    """Acks raise the scripted errors in order, then succeed."""

    def __init__(self, errors, *args, **kwargs) -> None:  # noqa: ANN001, ANN002, ANN003
        super().__init__(*args, **kwargs)
        self.ack_errors = list(errors)

    def ack(self, event_id, result=None, **call):  # noqa: ANN001, ANN003
        super().ack(event_id, result, **call)
        if self.ack_errors:
            raise self.ack_errors.pop(0)
        return {"ok": True}


def boom() -> CapHttpError:
    return CapHttpError(500, "POST /events/{id}/ack", code="internal_error", message="boom")


class AckBackoff(unittest.TestCase):
    def run_with(self, client, **options):  # noqa: ANN001, ANN003
        delays, reasons = [], []

        def on_backoff(b):  # noqa: ANN001
            delays.append(b["delay"])
            reasons.append(b["reason"])

        finish, _ = background(client, {"task.assigned": lambda e, c: None}, poll_interval=INTERVAL,
                               on_backoff=on_backoff, **options)
        return finish, delays, reasons

    def test_waits_the_interval_then_doubling_while_acks_fail_and_a_clean_batch_starts_it_over(self) -> None:
        # The same event delivered four times (its acks fail three times), then a new one whose ack fails once.
        e = event("e1")
        client = FailingAcks([boom(), boom(), boom()], ["long-poll"], [[e], [e], [e], [e]])
        finish, delays, _ = self.run_with(client)
        wait_until(lambda: len(client.named("ack")) == 4, "four acks of e1")
        client.ack_errors.append(boom())
        client.batches.extend([[event("e2")], [event("e2")]])
        wait_until(lambda: len(client.named("ack")) == 6, "two acks of e2")
        finish()
        self.assertEqual(delays, [j(INTERVAL), j(2 * INTERVAL), j(4 * INTERVAL), j(INTERVAL)])

    def test_backs_off_when_the_kernel_delivers_again_an_event_whose_ack_it_confirmed(self) -> None:
        e = event("e1")
        client = FakeClient(["long-poll"], [[e], [e], [e]])
        finish, delays, reasons = self.run_with(client)
        wait_until(lambda: len(delays) >= 2, "two backoffs")
        finish()
        self.assertIn("delivered again 1 event(s) it had confirmed acked", reasons[0])
        self.assertEqual(delays[:2], [j(INTERVAL), j(2 * INTERVAL)])

    def test_backs_off_after_a_batch_ack_it_cannot_read(self) -> None:
        store = MemoryHandledStore()
        store.set("a", {"outcome": "acknowledged"})
        store.set("b", {"outcome": "acknowledged"})
        client = FakeClient(["long-poll", "batch-ack"], [[event("a"), event("b")]])
        client.ack_many_error = CapSdkError("invalid_response", "POST /events/ack answered no `results` array of 2 items")
        finish, delays, reasons = self.run_with(client, store=store)
        wait_until(lambda: delays, "a backoff")
        finish()
        self.assertEqual(delays[0], j(INTERVAL))
        self.assertIn("2 acks failed", reasons[0])

    def test_never_polls_again_sooner_than_an_acks_retry_after(self) -> None:
        slow = CapHttpError(503, "POST /events/{id}/ack", code="store_unavailable", message="wait", retry_after=0.3)
        client = FailingAcks([slow], ["long-poll"], [[event("e1")]])
        finish, delays, _ = self.run_with(client)
        wait_until(lambda: delays, "a backoff")
        finish()
        self.assertEqual(delays, [0.3])

    def test_takes_404_event_not_found_on_an_ack_as_settled(self) -> None:
        gone = CapHttpError(404, "POST /events/{id}/ack", code="event_not_found", message="gone")
        client = FailingAcks([gone, gone], ["long-poll"], [[event("e1")], [event("e2")]])
        finish, delays, _ = self.run_with(client)
        wait_until(lambda: len(client.named("ack")) == 2 and len(client.named("poll")) >= 4, "both acks and more polls")
        finish()
        self.assertEqual(delays, [])


if __name__ == "__main__":
    unittest.main()
