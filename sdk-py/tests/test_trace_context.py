"""Trace context (feature `trace-context`) with the standard library alone: which headers an event's
`traceContext` becomes (a table: what is forwarded verbatim, what is dropped rather than sent wrong), what
CapClient sends (over a real socket), and which of run_driver's requests carry an event's context — the
handler's reply, the renewal, the cancellation watch, the release and the single ack — and which do not
(polls, a batch ack). OpenTelemetry is made unimportable here; test_otel_bridge.py covers it."""
from __future__ import annotations

import unittest

from cap_sdk import CapClient, HandlerContext, StopSignal
from cap_sdk._trace_context import TurnTrace, current_turn, trace_headers
from helpers import fake_otel
from helpers.fake_client import event
from helpers.kernel import wait_until
from helpers.stub import StubKernel, answer
from helpers.tracing_client import TRACEPARENT, TRACESTATE, TracingClient, background, traced

TP = TRACEPARENT
HEADERS = {"traceparent": TP, "tracestate": TRACESTATE}
LATER = "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-comes-next"

CASES = [
    ("a version-00 traceparent and its tracestate", {"traceparent": TP, "tracestate": TRACESTATE}, HEADERS),
    ("a traceparent alone", {"traceparent": TP}, {"traceparent": TP}),
    ("a tracestate as it came, spaces and all", {"traceparent": TP, "tracestate": "a=1 , b=2"}, {"traceparent": TP, "tracestate": "a=1 , b=2"}),
    ("a later version with a tail, as it came", {"traceparent": LATER}, {"traceparent": LATER}),
    ("version 00 with a tail", {"traceparent": TP + "-x"}, {}),
    ("version ff", {"traceparent": "ff" + TP[2:]}, {}),
    ("uppercase hex", {"traceparent": TP.upper()}, {}),
    ("an all-zero trace-id", {"traceparent": f"00-{'0' * 32}-00f067aa0ba902b7-01"}, {}),
    ("an all-zero parent-id", {"traceparent": f"00-4bf92f3577b34da6a3ce929d0e0e4736-{'0' * 16}-01"}, {}),
    ("a short trace-id", {"traceparent": "00-4bf92f35-00f067aa0ba902b7-01"}, {}),
    ("a traceparent over 256 characters", {"traceparent": LATER + "x" * 200}, {}),
    ("a traceparent that would end the header", {"traceparent": TP + "\r\nx-evil: 1"}, {}),
    ("a traceparent that is not a string", {"traceparent": 7}, {}),
    ("a traceContext that is not an object", TP, {}),
    ("no traceContext", None, {}),
    ("a tracestate without a traceparent", {"tracestate": TRACESTATE}, {}),
    ("a tracestate that would end the header", {"traceparent": TP, "tracestate": "a=1\r\nx: y"}, {"traceparent": TP}),
    ("a tracestate over 512 characters", {"traceparent": TP, "tracestate": "a=" + "b" * 511}, {"traceparent": TP}),
    ("a blank tracestate", {"traceparent": TP, "tracestate": "  "}, {"traceparent": TP}),
    ("a tracestate that is not ASCII", {"traceparent": TP, "tracestate": "a=é"}, {"traceparent": TP}),
    ("a tracestate that is not a string", {"traceparent": TP, "tracestate": ["a=1"]}, {"traceparent": TP}),
]


class Headers(unittest.TestCase):
    def test_an_events_trace_context_becomes_the_headers_to_forward(self) -> None:
        for name, given, want in CASES:
            with self.subTest(name):
                self.assertEqual(trace_headers(given), want)


class ClientRequests(unittest.TestCase):
    def client(self, stub: StubKernel) -> CapClient:
        return CapClient(stub.url, "cm_agent_" + "c" * 64, retry=False)

    def test_sends_the_trace_context_it_is_given_verbatim(self) -> None:
        with StubKernel([answer(200, {"ok": True})]) as stub:
            self.client(stub).ack("e", {"outcome": "posted"}, trace_context=HEADERS)
        self.assertEqual({k: stub.requests[0]["headers"].get(k) for k in HEADERS}, HEADERS)

    def test_sends_no_trace_header_for_a_malformed_context_or_none(self) -> None:
        with StubKernel([answer(200, {"ok": True})] * 2) as stub:
            self.client(stub).ack("e", trace_context={"traceparent": TP.upper(), "tracestate": "a=1"})
            self.client(stub).ack("e")
        for r in stub.requests:
            self.assertNotIn("traceparent", r["headers"])
            self.assertNotIn("tracestate", r["headers"])

    def test_a_call_in_a_handlers_turn_carries_the_turns_context_unless_given_another(self) -> None:
        other = {"traceparent": f"00-{'1' * 32}-{'2' * 16}-00"}
        memory = {"agentName": "a", "sections": {}, "content": ""}
        with StubKernel([answer(200, memory), answer(200, memory)]) as stub:
            client = self.client(stub)
            with current_turn(TurnTrace(traced("e1"))):
                client.get_memory()
                client.get_memory(trace_context=other)
        self.assertEqual(stub.requests[0]["headers"].get("traceparent"), TP)
        self.assertEqual(stub.requests[0]["headers"].get("tracestate"), TRACESTATE)
        self.assertEqual(stub.requests[1]["headers"].get("traceparent"), other["traceparent"])
        self.assertNotIn("tracestate", stub.requests[1]["headers"])


class DriverRequests(unittest.TestCase):
    def setUp(self) -> None:
        fake_otel.block()
        self.addCleanup(fake_otel.uninstall)

    def test_every_request_for_an_event_carries_its_context_and_a_batch_ack_none(self) -> None:
        other = f"00-{'a' * 32}-{'b' * 16}-01"
        batch = [
            traced("skip1", "mystery", traceparent=other), traced("skip2", "mystery"),  # acked together: one batch ack
            traced("run"),
            traced("wait", traceparent=other, tracestate=None),  # renewed while "run" runs, then fails: released
        ]
        client = TracingClient(["renew", "cancel", "batch-ack", "release"], [batch], lease_seconds=1)
        seen = {}

        def handle(e, ctx: HandlerContext):  # noqa: ANN001
            if e["id"] == "wait":
                raise RuntimeError("fails, to be released")
            seen["trace_context"] = ctx.trace_context
            wait_until(lambda: client.traces_of("watch", "run") and client.traces_of("renew", "wait"), "a watch of run and a renewal of wait")
            ctx.reply("done")

        finish = background(client, {"task.assigned": handle}, renew_at=0.5)
        wait_until(lambda: client.traces_of("release", "wait"), "the failed event released")
        finish()
        self.assertEqual(seen["trace_context"], HEADERS)
        self.assertEqual(client.traces_of("ack_many"), ["absent"])
        self.assertEqual([t[1] for t in client.traces if t[0] == "ack_many"], [("skip1", "skip2")])
        self.assertEqual(client.traces_of("post"), [HEADERS])
        self.assertEqual(set(map(str, client.traces_of("watch", "run"))), {str(HEADERS)})
        self.assertEqual(client.traces_of("ack", "run"), [HEADERS])
        self.assertEqual(set(map(str, client.traces_of("renew", "wait"))), {str({"traceparent": other})})
        self.assertEqual(client.traces_of("release", "wait"), [{"traceparent": other}])
        self.assertEqual(set(map(str, client.traces_of("poll"))), {"absent"})

    def test_an_event_without_a_usable_context_sends_none(self) -> None:
        bad = event("bad")
        bad["traceContext"] = {"traceparent": TP.upper()}
        client = TracingClient(["renew"], [[event("plain"), bad]])
        contexts = []

        def handle(e, ctx: HandlerContext):  # noqa: ANN001
            contexts.append(ctx.trace_context)
            ctx.reply("hi")

        finish = background(client, handle)
        wait_until(lambda: len(client.named("ack")) == 2, "both acked")
        finish()
        self.assertEqual(contexts, [None, None])
        self.assertEqual({t[2] for t in client.traces if t[0] != "poll"}, {"absent"})

    def test_a_single_ack_of_a_kernel_with_batch_ack_carries_the_context(self) -> None:
        client = TracingClient(["batch-ack"], [[traced("only", "mystery")]])
        finish = background(client, {})
        wait_until(lambda: client.named("ack"), "the skip acked")
        finish()
        self.assertEqual(client.traces_of("ack", "only"), [HEADERS])

    def test_a_handler_context_made_by_hand_reads_the_events_context(self) -> None:
        ctx = HandlerContext(traced("e", tracestate=None), TracingClient([]), StopSignal(), lambda _id: None)
        self.assertEqual(ctx.trace_context, {"traceparent": TP})
        ctx.trace_context["traceparent"] = "changed"  # a copy: the turn's own is not touched
        self.assertEqual(ctx.trace_context, {"traceparent": TP})


if __name__ == "__main__":
    unittest.main()
