"""What CapClient sends and how it retries, over a real socket to a scripted server: retries only where
the call is idempotent, one Idempotency-Key per call and all of its retries, Retry-After honoured (a 503
`store_unavailable` is waited out), timeouts and network failures as CapSdkError, a stop that interrupts
a long-poll, the User-Agent."""
from __future__ import annotations

import socket
import threading
import time
import unittest

from cap_sdk import USER_AGENT, CapClient, CapHttpError, CapSdkError, RetryPolicy, StopSignal, __version__
from cap_sdk._transport import parse_retry_after
from helpers.stub import StubKernel, answer

TOKEN = "cm_agent_" + "b" * 64
UNAVAILABLE = answer(503, {"code": "store_unavailable", "message": "the store is down"}, {"retry-after": "1"})


class Sleeps:
    def __init__(self) -> None:
        self.calls = []

    def __call__(self, seconds, cancel) -> None:  # noqa: ANN001
        self.calls.append(seconds)


def client(stub: StubKernel, **options) -> CapClient:
    options.setdefault("retry", RetryPolicy(retries=2, base_delay=0.5, max_delay=30))
    return CapClient(stub.url, TOKEN, random=lambda: 0.0, **options)


class Requests(unittest.TestCase):
    def test_sends_auth_the_sdks_user_agent_and_json(self) -> None:
        with StubKernel([answer(201, {"id": "m", "createdAt": "t"})]) as stub:
            client(stub, user_agent="my-driver/2").post_message("pod 1", "hi", reply_to_message_id="m0", metadata={"kind": "x"})
        r = stub.requests[0]
        self.assertEqual((r["method"], r["path"]), ("POST", "/api/agents/runtime/pods/pod%201/messages"))
        self.assertEqual(r["headers"]["authorization"], f"Bearer {TOKEN}")
        self.assertEqual(r["headers"]["user-agent"], f"{USER_AGENT} my-driver/2")
        self.assertTrue(r["headers"]["user-agent"].startswith(f"commonly-cap-python/{__version__} "))
        self.assertEqual(r["headers"]["content-type"], "application/json")
        self.assertEqual(r["body"], {"content": "hi", "replyToMessageId": "m0", "metadata": {"kind": "x"}})

    def test_puts_an_idempotency_key_on_every_post(self) -> None:
        calls = [
            lambda c: c.ack("e", {"outcome": "skipped"}),
            lambda c: c.ack_many([{"id": "e"}]),
            lambda c: c.renew("e", 1),
            lambda c: c.release("e", 1, delay_seconds=5000, reason="r"),
            lambda c: c.post_message("p", "x"),
            lambda c: c.sync_memory({"sections": {}, "mode": "full"}),
            lambda c: c.create_decision({"podId": "p", "decisionClass": "strategy", "title": "t", "question": "q", "options": ["a", "b"]}),
        ]
        answers = [answer(200, {"ok": True}), answer(200, {"results": [{"id": "e", "ok": True}]}), answer(200, {"leaseExpiresAt": "t"}),
                   answer(200, {"ok": True}), answer(201, {"id": "m"}), answer(200, {"ok": True}), answer(201, {"id": "d", "messageId": "m"})]
        with StubKernel(answers) as stub:
            c = client(stub)
            for call in calls:
                call(c)
        keys = [r["headers"].get("idempotency-key") for r in stub.requests]
        self.assertEqual(len(keys), 7)
        self.assertTrue(all(keys), keys)
        self.assertEqual(len(set(keys)), 7)
        self.assertEqual(stub.requests[3]["body"], {"attempts": 1, "delaySeconds": 900, "reason": "r"})

    def test_sends_poll_id_and_wait_only_when_given(self) -> None:
        with StubKernel([answer(200, {"events": []}), answer(200, {"events": []})]) as stub:
            c = client(stub)
            c.poll()
            c.poll(limit=3, wait_seconds=1, poll_id="p-1")
        self.assertEqual(stub.requests[0]["path"], "/api/agents/runtime/events")
        self.assertEqual(stub.requests[1]["path"], "/api/agents/runtime/events?limit=3&waitSeconds=1&pollId=p-1")

    def test_cancels_with_an_optional_reason_and_watches_a_delivery_with_its_fence_and_wait(self) -> None:
        cancelled = answer(200, {"ok": True, "status": "cancelled", "changed": True})
        watched = answer(200, {"cancelRequested": False, "leaseExpiresAt": "t"})
        with StubKernel([cancelled, cancelled, watched, watched]) as stub:
            c = client(stub)
            c.cancel_event("evt/1")
            c.cancel_event("evt_2", reason="wrong repository")
            c.watch_cancellation("evt_3", 2, wait_seconds=20)
            c.watch_cancellation("evt_3", 2)
        self.assertEqual([(r["method"], r["path"], r["body"]) for r in stub.requests], [
            ("POST", "/api/agents/runtime/events/evt%2F1/cancel", {}),
            ("POST", "/api/agents/runtime/events/evt_2/cancel", {"reason": "wrong repository"}),
            ("GET", "/api/agents/runtime/events/evt_3/cancellation?attempts=2&waitSeconds=20", None),
            ("GET", "/api/agents/runtime/events/evt_3/cancellation?attempts=2", None),
        ])
        self.assertTrue(all(r["headers"].get("idempotency-key") for r in stub.requests[:2]))

    def test_gives_a_watch_its_wait_on_top_of_the_timeout(self) -> None:
        # The stub holds the answer 1.5 s: a 1 s timeout alone would cut the watch off.
        with StubKernel([answer(200, {"cancelRequested": False, "leaseExpiresAt": "t"}, {"x-delay": "1.5"})]) as stub:
            self.assertFalse(client(stub, timeout=1).watch_cancellation("e", 1, wait_seconds=2)["cancelRequested"])


class Retries(unittest.TestCase):
    def test_retries_a_503_store_unavailable_honouring_retry_after_with_the_same_key(self) -> None:
        sleeps = Sleeps()
        with StubKernel([UNAVAILABLE, UNAVAILABLE, answer(201, {"id": "m", "createdAt": "t"})]) as stub:
            posted = client(stub, sleep=sleeps).post_message("p", "x")
        self.assertEqual(posted["id"], "m")
        self.assertEqual(sleeps.calls, [1.0, 1.0])  # max(backoff 0.25/0.5 s, Retry-After 1 s)
        keys = {r["headers"]["idempotency-key"] for r in stub.requests}
        self.assertEqual(len(stub.requests), 3)
        self.assertEqual(len(keys), 1)

    def test_backs_off_exponentially_with_jitter(self) -> None:
        sleeps = Sleeps()
        failing = [answer(502, {"code": "bad_gateway", "message": "x"})] * 3
        with StubKernel(failing) as stub:
            c = CapClient(stub.url, TOKEN, retry=RetryPolicy(retries=2, base_delay=1, max_delay=30), sleep=sleeps, random=lambda: 1.0)
            with self.assertRaises(CapHttpError) as caught:
                c.get_memory()
        self.assertEqual(caught.exception.status, 502)
        self.assertEqual(sleeps.calls, [1.0, 2.0])
        self.assertEqual(len(stub.requests), 3)

    def test_gives_up_at_once_when_retry_after_exceeds_the_longest_wait(self) -> None:
        sleeps = Sleeps()
        with StubKernel([answer(429, {"code": "rate_limited", "message": "slow"}, {"retry-after": "120"})]) as stub:
            with self.assertRaises(CapHttpError) as caught:
                client(stub, sleep=sleeps).put_memory({"content": "x"})
        self.assertEqual((caught.exception.code, caught.exception.retry_after), ("rate_limited", 120.0))
        self.assertEqual(sleeps.calls, [])

    def test_never_retries_a_decision(self) -> None:
        with StubKernel([UNAVAILABLE, answer(201, {"id": "d", "messageId": "m"})]) as stub:
            with self.assertRaises(CapHttpError) as caught:
                client(stub, sleep=Sleeps()).create_decision({"podId": "p", "decisionClass": "strategy", "title": "t", "question": "q", "options": ["a", "b"]})
        self.assertEqual(caught.exception.code, "store_unavailable")
        self.assertEqual(len(stub.requests), 1)

    def test_does_not_retry_a_client_error(self) -> None:
        with StubKernel([answer(404, {"code": "event_not_found", "message": "no"})]) as stub:
            with self.assertRaises(CapHttpError):
                client(stub, sleep=Sleeps()).ack("e")
        self.assertEqual(len(stub.requests), 1)

    def test_parses_retry_after_as_seconds_or_an_http_date(self) -> None:
        self.assertEqual(parse_retry_after("7"), 7.0)
        self.assertEqual(parse_retry_after("Wed, 21 Oct 2015 07:28:10 GMT", now=1445412480.0), 10.0)
        self.assertIsNone(parse_retry_after("soon"))
        self.assertIsNone(parse_retry_after(None))


class LocalFailures(unittest.TestCase):
    def test_a_timeout_is_a_cap_sdk_error_timeout(self) -> None:
        with StubKernel([answer(200, 2, {"x-hang": "1"})]) as stub:
            with self.assertRaises(CapSdkError) as caught:
                CapClient(stub.url, TOKEN, timeout=0.2, retry=False).get_memory()
        self.assertEqual(caught.exception.code, "timeout")

    def test_a_refused_connection_is_a_cap_sdk_error_network(self) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        with self.assertRaises(CapSdkError) as caught:
            CapClient(f"http://127.0.0.1:{port}", TOKEN, retry=False).info()
        self.assertEqual(caught.exception.code, "network")
        self.assertIsInstance(caught.exception.__cause__, OSError)

    def test_a_stop_interrupts_a_long_poll_at_once(self) -> None:
        stop = StopSignal()
        with StubKernel([answer(200, 10, {"x-hang": "1"})]) as stub:
            threading.Timer(0.2, stop.set).start()
            started = time.monotonic()
            with self.assertRaises(CapSdkError) as caught:
                CapClient(stub.url, TOKEN).poll(wait_seconds=20, cancel=stop)
        self.assertEqual(caught.exception.code, "aborted")
        self.assertLess(time.monotonic() - started, 5)  # not the 20 s wait, nor the 10 s hang

    def test_an_unknown_sdk_error_code_is_refused(self) -> None:
        with self.assertRaises(ValueError):
            CapSdkError("made_up", "x")

    def test_the_token_never_appears_in_repr(self) -> None:
        self.assertNotIn(TOKEN, repr(CapClient("http://x", TOKEN)))


if __name__ == "__main__":
    unittest.main()
