"""Through a Python driver, one connected trace: the real reference kernel exports its spans (OTLP/JSON) to a
loopback receiver (helpers/otlp_receiver.py), the Python driver records its own with the stand-in
`opentelemetry` (tests/fake_otel), and one human message posted with a `traceparent` gives one trace — the
driver's `invoke_agent` span is a child of the kernel's `send` span for the enqueue, and the kernel's server
span of the driver's reply post is a child of the driver's span, all with the human's trace-id."""
from __future__ import annotations

import unittest
from typing import Any, Dict, List, Optional

from helpers import fake_otel
from helpers.drivers import BackgroundDriver, client_for
from helpers.kernel import start_kernel, wait_until
from helpers.otlp_receiver import OtlpReceiver

TRACE_ID = "5b8aa5a2d2c872e8321cf37308d69df2"
HUMAN_PARENT = "051581bf3cb55c13"


def find(spans: List[Dict[str, Any]], **want: Any) -> Optional[Dict[str, Any]]:
    return next((s for s in spans if all(s.get(k) == v for k, v in want.items())), None)


class OneTrace(unittest.TestCase):
    def setUp(self) -> None:
        self.otel = fake_otel.install()
        self.addCleanup(fake_otel.uninstall)
        self.receiver = OtlpReceiver()
        self.addCleanup(self.receiver.close)
        env = {
            "OTEL_EXPORTER_OTLP_ENDPOINT": self.receiver.url,
            "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json",
            "OTEL_BSP_SCHEDULE_DELAY": "100",
        }
        self.kernel = start_kernel(["echo"], listeners=[], env=env)
        self.addCleanup(self.kernel.dispose)

    def test_a_human_message_the_kernel_and_the_python_driver_are_one_trace(self) -> None:
        k = self.kernel
        k.say("@echo hi", {"traceparent": f"00-{TRACE_ID}-{HUMAN_PARENT}-01"})
        driver = BackgroundDriver(client_for(k, "echo"), {"mention.received": lambda e, ctx: ctx.reply("echo: hi")}, agent_name="echo")
        try:
            wait_until(lambda: driver.rec.acks, "the mention acked")
        finally:
            driver.stop()
        [span] = self.otel.RECORDED
        ours = f"{span.get_span_context().span_id:016x}"
        parent = f"{span.parent.span_id:016x}"
        self.assertEqual(f"{span.parent.trace_id:032x}", TRACE_ID)
        self.assertEqual(span.name, "invoke_agent echo")

        def connected() -> Optional[List[Dict[str, Any]]]:
            spans = self.receiver.spans()
            if find(spans, spanId=parent) and find(spans, parentSpanId=ours, kind="server"):
                return spans
            return None

        spans = wait_until(connected, "the kernel's send span and its server span of the reply exported", timeout=30)
        send = find(spans, spanId=parent)
        self.assertEqual((send["name"], send["kind"], send["traceId"]), ("send", "producer", TRACE_ID))
        self.assertEqual(send["attributes"].get("messaging.system"), "cap")
        # The send span hangs off the server span of the human's post, itself a child of the human's traceparent.
        post = find(spans, spanId=send["parentSpanId"])
        self.assertIsNotNone(post, "the send span's parent was exported")
        self.assertEqual((post["kind"], post["traceId"], post["parentSpanId"]), ("server", TRACE_ID, HUMAN_PARENT))
        reply = find(spans, parentSpanId=ours, kind="server")
        self.assertEqual(reply["traceId"], TRACE_ID)
        self.assertIn("messages", reply["name"])
        self.assertTrue(reply["name"].startswith("POST"), reply["name"])
        self.assertEqual({s["serviceName"] for s in (send, post, reply)}, {"cap-kernel"})


if __name__ == "__main__":
    unittest.main()
