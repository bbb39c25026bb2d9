"""Trace context through the real reference kernel (feature `trace-context`), over real sockets: a human's
message posted with a `traceparent` wakes the Python driver with an event carrying it, and every request the
driver makes for that event — the handler's reply and memory read, the renewal while it waits its turn, the
cancellation watch while it runs, the release after a failure, the single ack — carries the event's trace-id
and its `tracestate` unchanged, while polls and a batch ack (events of several traces) carry none. A
recording proxy (helpers/proxy.py) between driver and kernel reads the headers. OpenTelemetry is made
unimportable here: the driver forwards the event's context as it came."""
from __future__ import annotations

import unittest
from typing import Any, Dict, List

from cap_sdk import CapClient, HandlerContext, RetryPolicy
from helpers import fake_otel
from helpers.drivers import BackgroundDriver
from helpers.kernel import start_kernel, wait_until
from helpers.proxy import CountingProxy

T1, T2, T3 = "4bf92f3577b34da6a3ce929d0e0e4736", "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331b7ad6b7169203331"
STATE1 = "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7"
STATE2 = "vendor=two"


def traceparent(trace_id: str, parent_id: str = "00f067aa0ba902b7") -> str:
    return f"00-{trace_id}-{parent_id}-01"


class ThroughTheKernel(unittest.TestCase):
    def setUp(self) -> None:
        fake_otel.block()
        self.addCleanup(fake_otel.uninstall)
        self.kernel = start_kernel(["echo"], lease_seconds=2, listeners=[])
        self.addCleanup(self.kernel.dispose)
        self.proxy = CountingProxy(self.kernel.url)
        self.addCleanup(self.proxy.close)

    def requests(self, method: str, contains: str) -> List[Dict[str, Any]]:
        return self.proxy.seen(method, contains)

    def test_every_request_the_driver_makes_for_an_event_carries_its_trace_context(self) -> None:
        k = self.kernel
        k.say("@echo one", {"traceparent": traceparent(T1), "tracestate": STATE1})
        k.say("@echo two", {"traceparent": traceparent(T2), "tracestate": STATE2})
        for _ in range(2):
            k.emit("echo", "mystery.kind", {}, {"traceparent": traceparent(T3)})
        events: Dict[str, Dict[str, Any]] = {}

        def on_event(e: Dict[str, Any]) -> None:
            key = (e.get("payload") or {}).get("content") or e["type"]
            events.setdefault(key, e)
            events.setdefault(e["id"], e)

        def mention(e: Dict[str, Any], ctx: HandlerContext) -> None:
            content = e["payload"]["content"]
            if content == "@echo one":
                # Held long enough for the kernel's cancellation watch of this turn and a renewal of "two".
                wait_until(lambda: self.requests("GET", f"/events/{e['id']}/cancellation"), "a watch of one")
                wait_until(lambda: self.requests("POST", "/renew"), "a renewal of the events waiting their turn")
                ctx.client.get_memory()
            elif e["attempts"] == 1:
                raise RuntimeError("two fails once, to be released")
            ctx.reply(f"echo: {content}")

        client = CapClient(self.proxy.url, k.agents["echo"]["token"], retry=RetryPolicy(retries=1, base_delay=0.01))
        driver = BackgroundDriver(client, {"mention.received": mention}, on_event=on_event, poll_interval=0.2)
        try:
            wait_until(lambda: len(driver.rec.acks) >= 4, "both mentions and both injected events acked", timeout=40)
        finally:
            driver.stop()

        one, two = events["@echo one"], events["@echo two"]
        self.assertEqual((one["attempts"], two["attempts"]), (1, 1))  # one handled at once; two failed once
        self.assertEqual(one["traceContext"], {"traceparent": traceparent(T1), "tracestate": STATE1})
        self.assertEqual(two["traceContext"]["traceparent"][3:35], T2)

        def carried(r: Dict[str, Any]) -> Any:
            h = r["headers"]
            return (h.get("traceparent", "")[3:35] or None, h.get("tracestate"))

        # The first event's requests: watch, memory, reply, single ack.
        self.assertEqual({carried(r) for r in self.requests("GET", f"/events/{one['id']}/cancellation")}, {(T1, STATE1)})
        self.assertEqual({carried(r) for r in self.requests("GET", "/runtime/memory")}, {(T1, STATE1)})
        replies = {r["body"]["content"]: carried(r) for r in self.requests("POST", "/messages") if "/runtime/" in r["path"]}
        self.assertEqual(replies, {"echo: @echo one": (T1, STATE1), "echo: @echo two": (T2, STATE2)})
        acks = self.requests("POST", f"/events/{one['id']}/ack")
        self.assertTrue(acks, "one is acked alone")
        self.assertEqual({carried(r) for r in acks}, {(T1, STATE1)})
        # The second's: renewed while waiting, released after its failure.
        self.assertEqual({carried(r) for r in self.requests("POST", f"/events/{two['id']}/renew")}, {(T2, STATE2)})
        self.assertEqual({carried(r) for r in self.requests("POST", f"/events/{two['id']}/release")}, {(T2, STATE2)})
        # Polls carry nothing; the batch ack of the two injected events (one trace or several) carries nothing.
        self.assertEqual({carried(r) for r in self.requests("GET", "/runtime/events?")}, {(None, None)})
        batches = [r for r in self.requests("POST", "/runtime/events/ack") if r["path"].endswith("/events/ack")]
        self.assertTrue(batches, "the injected events were acked in one batch")
        self.assertEqual({carried(r) for r in batches}, {(None, None)})
        self.assertEqual([e["stage"] for e in driver.rec.errors], ["handler"])  # two's one failure, nothing else


if __name__ == "__main__":
    unittest.main()
