"""Every CapClient method against the real reference kernel over real sockets. Each answer is also
checked against the generated models: it carries every key its TypedDict requires."""
from __future__ import annotations

import time
import unittest

from cap_sdk import FEATURES, CapClient, CapHttpError, models
from helpers.kernel import start_kernel, wait_until


class ClientAgainstKernel(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.kernel = start_kernel(["echo", "peer", "stopper"], lease_seconds=1)
        cls.echo = CapClient(cls.kernel.url, cls.kernel.agents["echo"]["token"])
        cls.peer = CapClient(cls.kernel.url, cls.kernel.agents["peer"]["token"])
        cls.stopper = CapClient(cls.kernel.url, cls.kernel.agents["stopper"]["token"])

    @classmethod
    def tearDownClass(cls) -> None:
        cls.kernel.dispose()

    def assertFits(self, value: dict, model: type) -> None:  # noqa: N802
        missing = set(model.__required_keys__) - set(value)
        self.assertEqual(missing, set(), f"{model.__name__} keys missing from {value}")

    def http_error(self, call) -> CapHttpError:
        with self.assertRaises(CapHttpError) as caught:
            call()
        return caught.exception

    def test_reads_info_with_the_configured_lease_and_the_optional_features(self) -> None:
        info = self.echo.info()
        self.assertFits(info, models.Info)
        self.assertEqual((info["protocol"], info["version"], info["leaseSeconds"]), ("cap", "1", 1))
        self.assertTrue({"long-poll", "renew", "idempotency-key", "message-read", "release", "batch-ack", "poll-replay"} <= set(info["features"]))
        self.assertEqual(set(info["features"]) - set(FEATURES), set())  # every advertised feature is a generated name

    def test_claims_an_event_acks_it_and_acks_it_again_idempotently(self) -> None:
        event_id = self.kernel.emit("echo", "task.assigned", {"taskId": "t1", "title": "Triage"})
        events = self.echo.poll(limit=5)["events"]
        self.assertEqual([(e["id"], e["type"], e["attempts"]) for e in events], [(event_id, "task.assigned", 1)])
        self.assertFits(events[0], models.Event)
        self.assertEqual(self.echo.ack(event_id, {"outcome": "no_action", "reason": "test"}), {"ok": True})
        self.assertEqual(self.echo.ack(event_id), {"ok": True})
        self.assertEqual(self.kernel.state("echo", event_id)["state"], "acked")

    def test_answers_404_event_not_found_for_an_unknown_event_and_for_another_agents(self) -> None:
        self.assertEqual(self.http_error(lambda: self.echo.ack("evt_nope")).code, "event_not_found")
        event_id = self.kernel.emit("peer", "heartbeat.tick", {"tickAt": "2026-12-01T00:00:00Z"})
        self.assertEqual(self.http_error(lambda: self.echo.ack(event_id)).status, 404)
        self.peer.poll()
        self.peer.ack(event_id)

    def test_holds_a_long_poll_until_an_event_arrives(self) -> None:
        import threading

        box = {}
        poller = threading.Thread(target=lambda: box.update(answer=self.echo.poll(wait_seconds=10)))
        started = time.monotonic()
        poller.start()
        time.sleep(0.3)  # let the poll reach the kernel; the assertion below does not depend on it
        event_id = self.kernel.emit("echo", "heartbeat.tick", {"tickAt": "2026-12-01T00:00:00Z"})
        poller.join(15)
        self.assertEqual([e["id"] for e in box["answer"]["events"]], [event_id])
        self.assertLess(time.monotonic() - started, 9)  # answered when the event came, not at the wait's end
        self.echo.ack(event_id)

    def test_fences_renew_by_attempts_409_lease_lost_for_a_lost_delivery(self) -> None:
        event_id = self.kernel.emit("echo", "task.assigned", {"taskId": "t2", "title": "Renew"})
        first = self.echo.poll()["events"][0]
        renewed = self.echo.renew(event_id, first["attempts"])
        self.assertFits(renewed, models.RenewResponse)
        second = wait_until(
            lambda: next((e for e in self.echo.poll(wait_seconds=1)["events"] if e["id"] == event_id), None),
            "the event is redelivered after its lease",
        )
        self.assertEqual(second["attempts"], 2)
        lost = self.http_error(lambda: self.echo.renew(event_id, 1))
        self.assertEqual((lost.status, lost.code), (409, "lease_lost"))
        self.assertTrue(self.echo.renew(event_id, 2)["ok"])
        self.echo.ack(event_id)
        self.assertEqual(self.http_error(lambda: self.echo.renew(event_id, 2)).code, "lease_lost")

    def test_posts_with_an_idempotency_key_once_and_replays_the_answer(self) -> None:
        first = self.echo.post_message(self.kernel.pod_id, "hello once", idempotency_key="k-1")
        again = self.echo.post_message(self.kernel.pod_id, "hello once", idempotency_key="k-1")
        self.assertFalse(first["replayed"])
        self.assertEqual(again, {**first, "replayed": True})
        reused = self.http_error(lambda: self.echo.post_message(self.kernel.pod_id, "other", idempotency_key="k-1"))
        self.assertEqual((reused.status, reused.code), (422, "idempotency_key_reused"))
        self.assertEqual(len([m for m in self.kernel.messages() if m["content"] == "hello once"]), 1)

    def test_reads_messages_newest_first_with_self_and_is_bot_flags(self) -> None:
        self.kernel.say("from a human")
        self.echo.post_message(self.kernel.pod_id, "from echo")
        messages = self.echo.list_messages(self.kernel.pod_id, limit=2)["messages"]
        self.assertEqual([(m["content"], m["self"], m["isBot"]) for m in messages], [("from echo", True, True), ("from a human", False, False)])
        for m in messages:
            self.assertFits(m, models.PodMessage)
        older = self.echo.list_messages(self.kernel.pod_id, limit=1, before=messages[1]["id"])["messages"]
        self.assertNotEqual(older[0]["id"], messages[1]["id"])

    def test_answers_403_not_installed_for_a_pod_the_agent_is_not_in(self) -> None:
        err = self.http_error(lambda: self.echo.post_message("pod_elsewhere", "x"))
        self.assertEqual((err.status, err.code), (403, "not_installed"))

    def test_writes_reads_and_syncs_memory_deduping_an_identical_sync(self) -> None:
        self.assertEqual(self.echo.get_memory()["schemaVersion"], 2)
        self.echo.put_memory({"sections": {"long_term": {"content": "Lily is allergic to kiwi."}}})
        memory = self.echo.get_memory()
        self.assertFits(memory, models.MemoryEnvelope)
        self.assertEqual(memory["content"], "Lily is allergic to kiwi.")
        self.assertEqual(memory["sections"]["long_term"]["byteSize"], 25)
        sync = {"sections": {"soul": {"content": "curious"}}, "mode": "patch", "sourceRuntime": "sdk-py-test"}
        self.assertFalse(self.echo.sync_memory(sync).get("deduped", False))
        self.assertTrue(self.echo.sync_memory(sync)["deduped"])

    def test_asks_a_decision(self) -> None:
        decision = self.echo.create_decision(
            {"podId": self.kernel.pod_id, "decisionClass": "prioritization", "title": "What first?",
             "question": "Backlog or flaky test?", "options": ["Backlog", "Flaky test"]}
        )
        self.assertFits(decision, models.DecisionResponse)
        self.assertRegex(decision["messageId"], r"\S")

    def test_releases_a_delivery_fenced_by_attempts_and_gets_it_back_after_the_delay(self) -> None:
        event_id = self.kernel.emit("echo", "task.assigned", {"taskId": "t3", "title": "Release"})
        held = self.echo.poll()["events"][0]
        lost = self.http_error(lambda: self.echo.release(event_id, held["attempts"] + 1, delay_seconds=0))
        self.assertEqual((lost.status, lost.code), (409, "lease_lost"))
        released = self.echo.release(event_id, held["attempts"], delay_seconds=1, reason="provider down")
        self.assertFits(released, models.ReleaseResponse)
        self.assertEqual(released["status"], "pending")
        self.assertEqual(self.kernel.state("echo", event_id)["releaseReason"], "provider down")
        again = wait_until(
            lambda: next((e for e in self.echo.poll(wait_seconds=1)["events"] if e["id"] == event_id), None),
            "the released event comes back after its delay",
        )
        self.assertEqual(again["attempts"], held["attempts"] + 1)
        self.echo.ack(event_id)

    def test_acks_many_events_in_one_request_in_request_order(self) -> None:
        ids = [self.kernel.emit("echo", "heartbeat.tick", {"tickAt": "2026-12-01T00:00:00Z"}) for _ in range(2)]
        self.echo.poll(limit=10)
        answer = self.echo.ack_many([{"id": ids[1], "result": {"outcome": "no_action"}}, {"id": "evt_nope"}, {"id": ids[0]}])
        self.assertFits(answer, models.BatchAckResponse)
        self.assertEqual([(r["id"], r["ok"], r.get("code")) for r in answer["results"]],
                         [(ids[1], True, None), ("evt_nope", False, "event_not_found"), (ids[0], True, None)])
        self.assertEqual({self.kernel.state("echo", i)["state"] for i in ids}, {"acked"})

    def test_replays_a_poll_by_its_poll_id_without_claiming_more(self) -> None:
        first_id = self.kernel.emit("echo", "task.assigned", {"taskId": "t4", "title": "Replay"})
        first = self.echo.poll(limit=1, poll_id="poll-1")["events"]
        self.kernel.emit("echo", "task.assigned", {"taskId": "t5", "title": "Not yet"})
        replay = self.echo.poll(limit=1, poll_id="poll-1")["events"]
        self.assertEqual([e["id"] for e in replay], [first_id])
        self.assertEqual(replay[0]["attempts"], first[0]["attempts"])
        for e in self.echo.poll(limit=10)["events"] + first:
            self.echo.ack(e["id"])

    def test_cancels_its_own_held_delivery_once_and_the_watch_renew_and_ack_say_so(self) -> None:
        event_id = self.kernel.emit("stopper", "task.assigned", {"taskId": "t6", "title": "Stop me"})
        held = self.stopper.poll(limit=1)["events"][0]
        waited = self.stopper.watch_cancellation(event_id, held["attempts"], wait_seconds=0)
        self.assertFits(waited, models.CancellationNotRequested)
        self.assertFalse(waited["cancelRequested"])
        first = self.stopper.cancel_event(event_id, reason="wrong repository")
        self.assertFits(first, models.CancelResponse)
        self.assertEqual(first, {"ok": True, "status": "cancelled", "changed": True})
        self.assertEqual(self.stopper.cancel_event(event_id), {"ok": True, "status": "cancelled", "changed": False})
        told = self.stopper.watch_cancellation(event_id, held["attempts"], wait_seconds=20)  # answered at once
        self.assertFits(told, models.CancellationRequested)
        self.assertEqual((told["cancelRequested"], told["reason"]), (True, "wrong repository"))
        other = self.http_error(lambda: self.stopper.watch_cancellation(event_id, held["attempts"] + 1))
        self.assertEqual((other.status, other.code), (409, "lease_lost"))
        renew = self.http_error(lambda: self.stopper.renew(event_id, held["attempts"]))
        self.assertEqual((renew.status, renew.code, renew.details["cancelled"]), (409, "lease_lost", True))
        self.assertEqual(renew.details["reason"], "wrong repository")
        self.assertEqual(self.stopper.ack(event_id, {"outcome": "cancelled", "reason": "wrong repository"}), {"ok": True})
        self.assertEqual(self.kernel.state("stopper", event_id)["state"], "cancelled")
        self.assertEqual(self.stopper.poll(limit=10)["events"], [])

    def test_cannot_cancel_or_watch_another_agents_event(self) -> None:
        event_id = self.kernel.emit("peer", "heartbeat.tick", {"tickAt": "2026-12-01T00:00:00Z"})
        self.assertEqual(self.http_error(lambda: self.stopper.cancel_event(event_id)).code, "event_not_found")
        self.assertEqual(self.http_error(lambda: self.stopper.watch_cancellation(event_id, 1)).code, "event_not_found")
        self.assertEqual(self.http_error(lambda: self.stopper.cancel_event("evt_nope")).status, 404)
        self.assertEqual(self.kernel.state("peer", event_id)["state"], "pending")
        self.peer.cancel_event(event_id)  # settled: the peer's own polls never see it

    def test_answers_401_with_the_registry_code_for_bad_tokens(self) -> None:
        for name, token, code in [("an unknown token", "cm_agent_" + "0" * 64, "token_unknown"), ("a malformed token", "not-a-token", "token_malformed")]:
            with self.subTest(name):
                err = self.http_error(lambda: CapClient(self.kernel.url, token).poll())
                self.assertEqual((err.status, err.code), (401, code))


if __name__ == "__main__":
    unittest.main()
