"""The lenient reader through CapClient over a real socket: given a kernel's answer, want what the
method returns (production shapes included) or the error it raises. Table tests."""
from __future__ import annotations

import unittest

from cap_sdk import CapClient, CapHttpError, CapSdkError
from helpers.stub import StubKernel, answer

TOKEN = "cm_agent_" + "a" * 64
EVENT = {
    "id": "evt_1",
    "type": "mention.received",
    "podId": "pod_1",
    "payload": {"messageId": "m0", "content": "@echo hi"},
    "attempts": 1,
    "createdAt": "2026-11-29T18:00:00Z",
}
WITHOUT_ID = {k: v for k, v in EVENT.items() if k != "id"}

# (name, call, kernel answer, want)
READS = [
    ("production events with _id and no id", lambda c: c.poll(),
     answer(200, {"events": [{**WITHOUT_ID, "_id": "65f0", "status": "delivered", "__v": 0}]}),
     {"events": [{**EVENT, "id": "65f0", "_id": "65f0", "status": "delivered", "__v": 0}]}),
    ("an event without payload or attempts, with a numeric podId", lambda c: c.poll(),
     answer(200, {"events": [{"id": "e", "type": "curate", "podId": 7, "createdAt": "t"}]}),
     {"events": [{"id": "e", "type": "curate", "podId": "7", "payload": {}, "attempts": 1, "createdAt": "t"}]}),
    ("a numeric _id", lambda c: c.poll(), answer(200, {"events": [{**WITHOUT_ID, "_id": 42}]}),
     {"events": [{**EVENT, "id": "42", "_id": 42}]}),
    ("a production ack {success: true}", lambda c: c.ack("e"), answer(200, {"success": True}), {"ok": True}),
    ("an ack with an empty body", lambda c: c.ack("e"), answer(200), {"ok": True}),
    ("a production post: 200 {success, message}", lambda c: c.post_message("p", "x"),
     answer(200, {"success": True, "message": {"_id": "m1", "id": "m1", "content": "x", "createdAt": "t"}}),
     {"id": "m1", "createdAt": "t", "replayed": False}),
    ("a CAP post: 201 {id, createdAt}", lambda c: c.post_message("p", "x"), answer(201, {"id": "m2", "createdAt": "t"}),
     {"id": "m2", "createdAt": "t", "replayed": False}),
    ("a replayed post", lambda c: c.post_message("p", "x", idempotency_key="k"),
     answer(201, {"id": "m2", "createdAt": "t"}, {"idempotent-replayed": "true"}), {"id": "m2", "createdAt": "t", "replayed": True}),
    ("a fresh agent's production memory {content: ''}", lambda c: c.get_memory(), answer(200, {"content": ""}),
     {"content": "", "sections": {}, "schemaVersion": 2}),
    ("a production sync {ok, deduped}", lambda c: c.sync_memory({"sections": {}, "mode": "full"}),
     answer(200, {"ok": True, "deduped": True}), {"ok": True, "deduped": True, "schemaVersion": 2}),
    ("messages with _id and no self/isBot flags", lambda c: c.list_messages("p"),
     answer(200, {"messages": [{"_id": "m", "content": "hi", "podId": "p"}]}),
     {"messages": [{"_id": "m", "id": "m", "content": "hi", "podId": "p", "self": False, "isBot": False}]}),
    ("a renew", lambda c: c.renew("e", 1), answer(200, {"ok": True, "leaseExpiresAt": "t2"}), {"ok": True, "leaseExpiresAt": "t2"}),
    ("a release with an empty body", lambda c: c.release("e", 1), answer(200), {"ok": True}),
    ("a production ack {success: true}", lambda c: c.ack("e"), answer(200, {"success": True}), {"ok": True}),
    ("an ack with an empty body", lambda c: c.ack("e"), answer(200), {"ok": True}),
    ("a batch ack, results in request order", lambda c: c.ack_many([{"id": "a"}, {"id": "b", "result": {"outcome": "skipped"}}]),
     answer(200, {"results": [{"id": "a", "ok": True}, {"id": "b", "ok": False, "code": "event_not_found"}]}),
     {"results": [{"id": "a", "ok": True}, {"id": "b", "ok": False, "code": "event_not_found"}]}),
    ("info without maxWaitSeconds or maxMessageBytes", lambda c: c.info(),
     answer(200, {"protocol": "cap", "version": "1", "leaseSeconds": 30, "maxAttempts": 5, "maxLimit": 50, "features": ["renew", 3]}),
     {"protocol": "cap", "version": "1", "leaseSeconds": 30, "maxAttempts": 5, "maxLimit": 50, "maxWaitSeconds": 0,
      "maxMessageBytes": 65536, "features": ["renew"]}),
    ("a cancel that cancelled", lambda c: c.cancel_event("e"), answer(200, {"ok": True, "status": "cancelled", "changed": True}),
     {"ok": True, "status": "cancelled", "changed": True}),
    ("a cancel of a settled event, without ok", lambda c: c.cancel_event("e"), answer(200, {"status": "acked", "changed": False}),
     {"ok": True, "status": "acked", "changed": False}),
    ("a watch told of a cancel", lambda c: c.watch_cancellation("e", 1),
     answer(200, {"cancelRequested": True, "reason": "superseded", "requestedAt": "t"}),
     {"cancelRequested": True, "reason": "superseded", "requestedAt": "t"}),
    ("a watch told of a cancel without a reason", lambda c: c.watch_cancellation("e", 1), answer(200, {"cancelRequested": True}),
     {"cancelRequested": True, "reason": "requested", "requestedAt": ""}),
    ("a watch that waited in vain", lambda c: c.watch_cancellation("e", 1), answer(200, {"cancelRequested": False, "leaseExpiresAt": "t"}),
     {"cancelRequested": False, "leaseExpiresAt": "t"}),
    ("a decision with _id", lambda c: c.create_decision({"podId": "p", "decisionClass": "strategy", "title": "t", "question": "q", "options": ["a", "b"]}),
     answer(201, {"_id": "d1", "messageId": "m"}), {"_id": "d1", "id": "d1", "messageId": "m", "createdAt": ""}),
]

# (name, call, kernel answer, error class, code)
FAILS = [
    ("an event without any id", lambda c: c.poll(), answer(200, {"events": [{"type": "x"}]}), CapSdkError, "invalid_response"),
    ("an event without a type", lambda c: c.poll(), answer(200, {"events": [{"id": "e"}]}), CapSdkError, "invalid_response"),
    ("a poll without events", lambda c: c.poll(), answer(200, {"data": []}), CapSdkError, "invalid_response"),
    ("a body that is not JSON", lambda c: c.poll(), answer(200, raw=b"<html>blocked</html>"), CapSdkError, "invalid_response"),
    ("a production refusal (200, refused)", lambda c: c.post_message("p", "x"),
     answer(200, {"success": False, "refused": True, "reason": "consecutive_run_cap"}), CapSdkError, "not_posted"),
    ("a production skip (200, skipped)", lambda c: c.post_message("p", "x"),
     answer(200, {"success": True, "skipped": True, "reason": "duplicate"}), CapSdkError, "not_posted"),
    ("a post without a message id", lambda c: c.post_message("p", "x"), answer(201, {"createdAt": "t"}), CapSdkError, "invalid_response"),
    ("a renew without leaseExpiresAt", lambda c: c.renew("e", 1), answer(200, {"ok": True}), CapSdkError, "invalid_response"),
    ("a batch ack with fewer results than acks", lambda c: c.ack_many([{"id": "a"}, {"id": "b"}]),
     answer(200, {"results": [{"id": "a", "ok": True}]}), CapSdkError, "invalid_response"),
    ("a batch ack answering the spec's example for other ids (what Prism answered)", lambda c: c.ack_many([{"id": "a"}, {"id": "b"}]),
     answer(200, {"results": [{"id": "evt_01JH7Z9QK3W5Y2", "ok": True}, {"id": "evt_01JH7Z9QK3W5Y3", "ok": False}]}),
     CapSdkError, "invalid_response"),
    ("an ack answered 200 {ok: false}", lambda c: c.ack("e"), answer(200, {"ok": False}), CapSdkError, "invalid_response"),
    ("an ack answered 200 {success: false}", lambda c: c.ack("e"), answer(200, {"success": False}), CapSdkError, "invalid_response"),
    ("an ack answered 200 with a JSON array", lambda c: c.ack("e"), answer(200, [1, 2]), CapSdkError, "invalid_response"),
    ("a cancel without status and changed", lambda c: c.cancel_event("e"), answer(200, {"ok": True}), CapSdkError, "invalid_response"),
    ("a cancel answered 200 {ok: false}", lambda c: c.cancel_event("e"), answer(200, {"ok": False, "status": "cancelled", "changed": True}),
     CapSdkError, "invalid_response"),
    ("a watch without cancelRequested", lambda c: c.watch_cancellation("e", 1), answer(200, {"ok": True}), CapSdkError, "invalid_response"),
    ("a watch with a cancelRequested that is not a boolean", lambda c: c.watch_cancellation("e", 1), answer(200, {"cancelRequested": "yes"}),
     CapSdkError, "invalid_response"),
    ("a watch of a delivery no longer held", lambda c: c.watch_cancellation("e", 1),
     answer(409, {"code": "lease_lost", "message": "gone"}), CapHttpError, "lease_lost"),
    ("a CAP error", lambda c: c.renew("e", 1), answer(409, {"code": "lease_lost", "message": "gone"}), CapHttpError, "lease_lost"),
    ("a production error {message} without code", lambda c: c.poll(), answer(401, {"message": "Invalid agent token"}), CapHttpError, "http_401"),
    ("a registry error {error}", lambda c: c.poll(), answer(404, {"error": "Not found"}), CapHttpError, "http_404"),
    ("an error with a code that is not snake_case", lambda c: c.poll(), answer(400, {"code": "Bad Thing", "message": "m"}), CapHttpError, "http_400"),
]


class LenientReader(unittest.TestCase):
    def client(self, stub: StubKernel) -> CapClient:
        return CapClient(stub.url, TOKEN, retry=False)

    def test_reads_every_shape(self) -> None:
        for name, call, kernel_answer, want in READS:
            with self.subTest(name), StubKernel([kernel_answer]) as stub:
                self.assertEqual(call(self.client(stub)), want)

    def test_raises_the_documented_error_for_each_unreadable_answer(self) -> None:
        for name, call, kernel_answer, error_class, code in FAILS:
            with self.subTest(name), StubKernel([kernel_answer]) as stub:
                with self.assertRaises(error_class) as caught:
                    call(self.client(stub))
                self.assertEqual(caught.exception.code, code)

    def test_keeps_message_details_and_reason_of_an_error_body(self) -> None:
        body = {"code": "lease_lost", "message": "the lease ended", "details": {"attempts": 2}, "reason": "expired"}
        with StubKernel([answer(409, body, {"x-request-id": "req-7"})]) as stub:
            with self.assertRaises(CapHttpError) as caught:
                self.client(stub).renew("e", 1)
        err = caught.exception
        self.assertEqual((err.status, err.code, err.message, err.request_id), (409, "lease_lost", "the lease ended", "req-7"))
        self.assertEqual(err.details, {"attempts": 2, "reason": "expired"})
        self.assertEqual(err.body, body)
        self.assertIn("POST /events/{id}/renew failed with 409 lease_lost", str(err))

    def test_accepts_a_base_url_with_the_runtime_path(self) -> None:
        with StubKernel([answer(200, {"events": []})]) as stub:
            CapClient(stub.url + "/api/agents/runtime/", TOKEN).poll(limit=5)
            self.assertEqual(stub.requests[0]["path"], "/api/agents/runtime/events?limit=5")


if __name__ == "__main__":
    unittest.main()
