"""run_driver's OpenTelemetry bridge, against the stand-in `opentelemetry` of tests/fake_otel (no Python
package index is reachable, so the real one cannot be installed here): one consumer span per handler turn,
named `invoke_agent {agent}`, child of the event's `traceparent`, with the GenAI and messaging attributes,
current while the handler runs, ended after the event is settled, the handler's exception recorded; the
requests made for the event carry the span's own id (and a span the handler starts, its id). Without
OpenTelemetry, or with one that fails, the event's context goes out as it came, and the import is tried
only once."""
from __future__ import annotations

import importlib
import sys
import unittest

from cap_sdk import HandlerContext, MemoryHandledStore, _otel_bridge
from helpers import fake_otel
from helpers.kernel import wait_until
from helpers.tracing_client import TRACE_ID, TRACEPARENT, TRACESTATE, TracingClient, background, traced


def headers_of(span) -> dict:  # noqa: ANN001
    c = span.get_span_context()
    return {"traceparent": f"00-{c.trace_id:032x}-{c.span_id:016x}-{c.trace_flags:02x}", "tracestate": TRACESTATE}


class Bridge(unittest.TestCase):
    def setUp(self) -> None:
        self.trace = fake_otel.install()
        self.addCleanup(fake_otel.uninstall)

    def run_one(self, handler, features=("renew", "cancel", "release"), batch=None, **options):  # noqa: ANN001, ANN201
        client = TracingClient(list(features), [batch or [traced("e1")]], lease_seconds=2)
        acked_while_open = []
        options.setdefault("agent_name", "echo")
        finish = background(
            client, handler,
            on_ack=lambda a: acked_while_open.append(all(s.end_count == 0 for s in self.trace.RECORDED)),
            **options,
        )
        wait_until(lambda: client.named("ack") or client.named("release"), "the event settled")
        finish()
        return client, acked_while_open

    def test_a_turn_runs_in_a_consumer_span_child_of_the_events_traceparent(self) -> None:
        seen = {}

        def handle(e, ctx: HandlerContext):  # noqa: ANN001
            seen["current"] = self.trace.get_current_span()
            seen["trace_context"] = ctx.trace_context
            ctx.reply("hi")

        client, acked_while_open = self.run_one(handle)
        [span] = self.trace.RECORDED
        self.assertEqual(span.name, "invoke_agent echo")
        self.assertIs(span.kind, self.trace.SpanKind.CONSUMER)
        self.assertEqual((f"{span.parent.trace_id:032x}", f"{span.parent.span_id:016x}"), (TRACE_ID, TRACEPARENT[36:52]))
        self.assertTrue(span.parent.is_remote)
        self.assertEqual(span.attributes, {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": "echo",
            "gen_ai.conversation.id": "pod_1",
            "messaging.system": "cap",
            "messaging.operation.type": "process",
            "messaging.message.id": "e1",
            "messaging.destination.name": "echo",
            "cap.event.type": "task.assigned",
            "cap.event.attempts": 1,
            "cap.ack.outcome": "posted",
        })
        self.assertIs(seen["current"], span)
        self.assertEqual(span.end_count, 1)
        self.assertEqual(acked_while_open, [True])  # ended after the ack, so the ack is inside it
        self.assertEqual(self.trace.TRACERS[0][0], "cap_sdk")
        own = headers_of(span)
        self.assertEqual(own["traceparent"][3:35], TRACE_ID)
        self.assertEqual(seen["trace_context"], own)
        self.assertEqual(client.traces_of("post"), [own])
        self.assertEqual(client.traces_of("ack", "e1"), [own])
        self.assertIs(self.trace.get_current_span(), self.trace.INVALID_SPAN)  # nothing left current here

    def test_renewals_and_watches_of_a_running_turn_carry_the_spans_id(self) -> None:
        def handle(e, ctx: HandlerContext):  # noqa: ANN001
            wait_until(lambda: client.traces_of("watch", "e1"), "a watch")

        client = TracingClient(["renew", "cancel"], [[traced("e1")]], lease_seconds=2)
        finish = background(client, handle, agent_name="echo")
        wait_until(lambda: client.named("ack"), "acked")
        finish()
        own = headers_of(self.trace.RECORDED[0])
        self.assertEqual({str(t) for t in client.traces_of("watch", "e1")}, {str(own)})

    def test_a_failing_handler_is_recorded_on_the_span_and_its_release_carries_the_span(self) -> None:
        def handle(e, ctx):  # noqa: ANN001
            raise ValueError("no model answered")

        client, _ = self.run_one(handle)
        [span] = self.trace.RECORDED
        self.assertEqual([type(x) for x in span.exceptions], [ValueError])
        self.assertIs(span.status.status_code, self.trace.StatusCode.ERROR)
        self.assertEqual(span.status.description, "no model answered")
        self.assertEqual(span.attributes["error.type"], "runtime")  # the retry circuit's class, as in the TypeScript SDK
        self.assertEqual(span.end_count, 1)
        self.assertEqual(client.traces_of("release", "e1"), [headers_of(span)])
        self.assertEqual(client.named("ack"), [])

    def test_a_span_the_handler_starts_in_the_trace_is_what_its_calls_carry(self) -> None:
        def handle(e, ctx: HandlerContext):  # noqa: ANN001
            tracer = self.trace.get_tracer("my-agent")
            child = tracer.start_span("execute_tool search")
            with self.trace.use_span(child):
                ctx.reply("from the tool")
            elsewhere = tracer.start_span("another trace", context=importlib.import_module("opentelemetry.context").Context())
            with self.trace.use_span(elsewhere):
                ctx.reply("from another trace's span")

        client, _ = self.run_one(handle)
        driver, child, elsewhere = self.trace.RECORDED
        self.assertEqual(child.parent.span_id, driver.get_span_context().span_id)
        self.assertIsNone(elsewhere.parent)
        self.assertEqual(client.traces_of("post"), [headers_of(child), headers_of(driver)])
        self.assertEqual(client.traces_of("ack", "e1"), [headers_of(driver)])

    def test_a_cancelled_turn_ends_its_span_with_the_cancels_reason(self) -> None:
        def handle(e, ctx: HandlerContext):  # noqa: ANN001
            wait_until(lambda: client.traces_of("watch", "e1"), "a watch")
            client.cancel("e1", "superseded")
            ctx.cancelled.wait(10)

        client = TracingClient(["renew", "cancel"], [[traced("e1")]], lease_seconds=2)
        finish = background(client, handle, agent_name="echo")
        wait_until(lambda: client.named("ack"), "acked")
        finish()
        [span] = self.trace.RECORDED
        self.assertEqual((span.attributes["cap.ack.outcome"], span.attributes["cap.cancel.reason"]), ("cancelled", "superseded"))
        self.assertIs(span.status.status_code, self.trace.StatusCode.UNSET)
        self.assertEqual(client.traces_of("ack", "e1"), [headers_of(span)])

    def test_an_event_without_a_context_gets_a_root_span_and_its_requests_carry_it(self) -> None:
        client, _ = self.run_one(lambda e, ctx: ctx.reply("hi"), batch=[traced("e1", tracestate=None, traceparent="bad")], agent_name=None)
        [span] = self.trace.RECORDED
        self.assertIsNone(span.parent)
        self.assertEqual(span.name, "invoke_agent")
        self.assertNotIn("gen_ai.agent.name", span.attributes)
        own = headers_of(span)
        del own["tracestate"]
        self.assertEqual(client.traces_of("post"), [own])

    def test_an_event_acked_without_its_handler_gets_a_span_too(self) -> None:
        store = MemoryHandledStore()
        store.set("dup", {"outcome": "posted", "messageId": "m"})
        client, _ = self.run_one({}, batch=[traced("skip", "mystery"), traced("dup")], store=store)
        skip, dup = self.trace.RECORDED
        self.assertEqual((skip.attributes["cap.ack.outcome"], skip.end_count), ("skipped", 1))
        self.assertEqual((dup.attributes["cap.ack.outcome"], dup.attributes["cap.ack.duplicate"], dup.end_count), ("posted", True, 1))
        self.assertEqual(client.traces_of("ack", "skip"), [headers_of(skip)])

    def test_the_events_tracestate_goes_on_as_it_came_though_opentelemetry_rewrites_it(self) -> None:
        spaced = "congo=t61rcWkgMzE , rojo=00f067aa0ba902b7"
        client, _ = self.run_one(lambda e, ctx: ctx.reply("hi"), batch=[traced("e1", tracestate=spaced)])
        [span] = self.trace.RECORDED
        self.assertEqual(span.get_span_context().trace_state, TRACESTATE)  # the stand-in rewrote it, as OpenTelemetry does
        self.assertEqual(client.traces_of("post"), [{**headers_of(span), "tracestate": spaced}])

    def test_a_tracer_that_fails_leaves_the_turn_running_on_the_events_context(self) -> None:
        self.trace.FAIL = True
        client, _ = self.run_one(lambda e, ctx: ctx.reply("hi"))
        self.assertEqual(client.traces_of("post"), [{"traceparent": TRACEPARENT, "tracestate": TRACESTATE}])
        self.assertEqual(client.traces_of("ack", "e1"), [{"traceparent": TRACEPARENT, "tracestate": TRACESTATE}])


class WithoutOpenTelemetry(unittest.TestCase):
    def tearDown(self) -> None:
        fake_otel.uninstall()

    def test_the_import_is_tried_once_and_the_events_context_goes_out_as_it_came(self) -> None:
        fake_otel.block()
        client = TracingClient([], [[traced("e1")]])
        finish = background(client, lambda e, ctx: ctx.reply("hi"), agent_name="echo")
        wait_until(lambda: client.named("ack"), "acked")
        finish()
        self.assertEqual(client.traces_of("post"), [{"traceparent": TRACEPARENT, "tracestate": TRACESTATE}])
        self.assertIsNone(_otel_bridge.load())
        # Importable from now on, but the driver does not try again (no cost per event once absent).
        del sys.modules["opentelemetry"]
        sys.path.insert(0, fake_otel.FAKE)
        importlib.invalidate_caches()
        self.assertIsNotNone(importlib.import_module("opentelemetry.trace"))
        self.assertIsNone(_otel_bridge.load())
        _otel_bridge.reset()
        self.assertIsNotNone(_otel_bridge.load())


if __name__ == "__main__":
    unittest.main()
