/**
 * CapClient: the lenient reader (production-kernel shapes) and the errors it maps answers to.
 */
import { describe, expect, it } from "vitest";
import type { CapClient } from "../../src/client.js";
import { CapHttpError, CapSdkError } from "../../src/errors.js";
import { exampleEvent, json, scriptedClient, TOKEN } from "../helpers/fake-fetch.js";

describe("CapClient lenient reader", () => {
  // given a kernel answer, want what the method returns.
  const cases: Array<[string, (c: CapClient) => Promise<unknown>, Response, unknown]> = [
    [
      "production events with _id and no id",
      (c) => c.poll(),
      json(200, { events: [{ ...exampleEvent, id: undefined, _id: "65f0", status: "delivered", __v: 0 }] }),
      { events: [{ ...exampleEvent, id: "65f0", _id: "65f0", status: "delivered", __v: 0 }] },
    ],
    [
      "an event without payload or attempts",
      (c) => c.poll(),
      json(200, { events: [{ id: "e", type: "curate", podId: 7, createdAt: "t" }] }),
      { events: [{ id: "e", type: "curate", podId: "7", payload: {}, attempts: 1, createdAt: "t" }] },
    ],
    ["a production ack {success: true}", (c) => c.ack("e"), json(200, { success: true }), { ok: true }],
    ["an ack with an empty body", (c) => c.ack("e"), new Response(null, { status: 200 }), { ok: true }],
    [
      "a production post: 200 {success, message}",
      (c) => c.postMessage("p", { content: "x" }),
      json(200, { success: true, message: { _id: "m1", id: "m1", content: "x", createdAt: "t" } }),
      { id: "m1", createdAt: "t", replayed: false },
    ],
    [
      "a CAP post: 201 {id, createdAt}",
      (c) => c.postMessage("p", { content: "x" }),
      json(201, { id: "m2", createdAt: "t" }),
      { id: "m2", createdAt: "t", replayed: false },
    ],
    [
      "a fresh agent's production memory {content: ''}",
      (c) => c.getMemory(),
      json(200, { content: "" }),
      { content: "", sections: {}, schemaVersion: 2 },
    ],
    [
      "a production sync {ok, deduped}",
      (c) => c.syncMemory({ sections: {}, mode: "full" }),
      json(200, { ok: true, deduped: true }),
      { ok: true, deduped: true, schemaVersion: 2 },
    ],
    [
      "messages with _id and no self/isBot flags",
      (c) => c.listMessages("p"),
      json(200, { messages: [{ _id: "m", content: "hi", podId: "p" }] }),
      { messages: [{ _id: "m", id: "m", content: "hi", podId: "p", self: false, isBot: false }] },
    ],
    [
      "a release to a dead letter",
      (c) => c.release("e", { attempts: 5 }),
      json(200, { ok: true, status: "failed" }),
      { ok: true, status: "failed" },
    ],
    [
      "a bare {ok: true} release as pending",
      (c) => c.release("e", { attempts: 1 }),
      json(200, { ok: true }),
      { ok: true, status: "pending" },
    ],
    [
      "batch ack results settled and refused, in request order",
      (c) => c.ackMany([{ id: "a" }, { id: "b" }]),
      json(200, {
        results: [
          { id: "a", ok: true },
          { id: "b", ok: false, code: "event_not_found" },
        ],
      }),
      {
        results: [
          { id: "a", ok: true },
          { id: "b", ok: false, code: "event_not_found" },
        ],
      },
    ],
    [
      "a cancel answer, keeping unknown fields",
      (c) => c.cancelEvent("e"),
      json(200, { ok: true, status: "cancelled", changed: true, cancelledAt: "2026-11-29T18:00:12Z" }),
      { ok: true, status: "cancelled", changed: true, cancelledAt: "2026-11-29T18:00:12Z" },
    ],
    [
      "a cancel answer without changed (not this call's cancel)",
      (c) => c.cancelEvent("e"),
      json(200, { ok: true, status: "failed" }),
      { ok: true, status: "failed", changed: false },
    ],
    [
      "a watch that saw the cancel",
      (c) => c.watchCancellation("e", { attempts: 1 }),
      json(200, { cancelRequested: true, reason: "superseded", requestedAt: "2026-11-29T18:00:12Z" }),
      { cancelRequested: true, reason: "superseded", requestedAt: "2026-11-29T18:00:12Z" },
    ],
    [
      "a watch that saw the cancel, without a reason",
      (c) => c.watchCancellation("e", { attempts: 1 }),
      json(200, { cancelRequested: true }),
      { cancelRequested: true, reason: "requested", requestedAt: "" },
    ],
  ];
  for (const [name, call, answer, want] of cases) {
    it(`reads ${name}`, async () => {
      const { c } = scriptedClient([answer]);
      expect(await call(c)).toEqual(want);
    });
  }

  // given an answer the SDK cannot act on, want the CapSdkError code and a message fragment.
  const unreadable: Array<[string, (c: CapClient) => Promise<unknown>, Response, string, RegExp]> = [
    [
      "an event without any id",
      (c) => c.poll(),
      json(200, { events: [{ type: "x" }] }),
      "invalid_response",
      /events\[0\] without an id/,
    ],
    [
      "a poll without events",
      (c) => c.poll(),
      json(200, { items: [] }),
      "invalid_response",
      /no `events` array/,
    ],
    [
      "a body that is not JSON",
      (c) => c.poll(),
      new Response("<html>", { status: 200, headers: { "content-type": "text/html" } }),
      "invalid_response",
      /not JSON/,
    ],
    [
      "a production post refused with 200",
      (c) => c.postMessage("p", { content: "x" }),
      json(200, { success: false, refused: true, reason: "consecutive_run_cap" }),
      "not_posted",
      /consecutive_run_cap/,
    ],
    [
      "a production post skipped with 200",
      (c) => c.postMessage("p", { content: "x" }),
      json(200, { success: true, skipped: true, reason: "duplicate" }),
      "not_posted",
      /duplicate/,
    ],
    [
      "batch ack results that do not match the items",
      (c) => c.ackMany([{ id: "a" }, { id: "b" }]),
      json(200, { results: [{ id: "a", ok: true }] }),
      "invalid_response",
      /no `results` array of 2 items/,
    ],
    [
      "batch ack results out of order",
      (c) => c.ackMany([{ id: "a" }, { id: "b" }]),
      json(200, {
        results: [
          { id: "b", ok: true },
          { id: "a", ok: true },
        ],
      }),
      "invalid_response",
      /results\[0\] that is not the result for a/,
    ],
    [
      "the spec's batch-ack example for other ids (what Prism answered)",
      (c) => c.ackMany([{ id: "a" }, { id: "b" }]),
      json(200, {
        results: [
          { id: "evt_01JH7Z9QK3W5Y2", ok: true },
          { id: "evt_01JH7Z9QK3W5Y3", ok: false, code: "event_not_found" },
        ],
      }),
      "invalid_response",
      /results\[0\] that is not the result for a/,
    ],
    [
      "an ack answered 200 {ok: false}",
      (c) => c.ack("e"),
      json(200, { ok: false }),
      "invalid_response",
      /ok: false/,
    ],
    [
      "an ack answered 200 {success: false}",
      (c) => c.ack("e"),
      json(200, { success: false }),
      "invalid_response",
      /ok: false/,
    ],
    [
      "an ack answered 200 with a JSON array",
      (c) => c.ack("e"),
      json(200, [1, 2]),
      "invalid_response",
      /not a JSON object/,
    ],
    [
      "a renew without leaseExpiresAt",
      (c) => c.renew("e", 1),
      json(200, { ok: true }),
      "invalid_response",
      /leaseExpiresAt/,
    ],
    [
      "a cancel answered with a status that is not a state",
      (c) => c.cancelEvent("e"),
      json(200, { ok: true, status: "done", changed: true }),
      "invalid_response",
      /status/,
    ],
    [
      "a watch answered without cancelRequested",
      (c) => c.watchCancellation("e", { attempts: 1 }),
      json(200, { cancelled: "yes" }),
      "invalid_response",
      /cancelRequested/,
    ],
  ];
  for (const [name, call, answer, code, message] of unreadable) {
    it(`fails with ${code} on ${name}`, async () => {
      const { c } = scriptedClient([answer]);
      const error = (await call(c).catch((e) => e)) as CapSdkError;
      expect(error).toBeInstanceOf(CapSdkError);
      expect(error.code).toBe(code);
      expect(error.message).toMatch(message);
    });
  }
});

describe("CapClient errors", () => {
  // given a non-2xx answer, want the CapHttpError's status, code, message fragment and request id.
  const cases: Array<[string, Response, number, string, RegExp, string | undefined]> = [
    [
      "a CAP error with a request id",
      json(
        401,
        { code: "token_revoked", message: "The bearer token has been revoked." },
        { "x-request-id": "req-7" },
      ),
      401,
      "token_revoked",
      /revoked/,
      "req-7",
    ],
    [
      "a production 401 without code",
      json(401, { message: "Invalid agent token" }),
      401,
      "http_401",
      /Invalid agent token/,
      undefined,
    ],
    [
      "a registry-style {error}",
      json(403, { error: "Not installed" }),
      403,
      "http_403",
      /Not installed/,
      undefined,
    ],
    [
      "a plain-text 502 from a proxy",
      new Response("Bad Gateway", { status: 502 }),
      502,
      "http_502",
      /Bad Gateway/,
      undefined,
    ],
    [
      "a 404 event_not_found",
      json(404, { code: "event_not_found", message: "No such event" }),
      404,
      "event_not_found",
      /No such event/,
      undefined,
    ],
  ];
  for (const [name, answer, status, code, message, requestId] of cases) {
    it(`reads ${name} as a CapHttpError`, async () => {
      const { c } = scriptedClient([answer], { retry: false });
      const error = await c.ack("e").catch((e) => e);
      expect(error).toBeInstanceOf(CapHttpError);
      expect(error).not.toBeInstanceOf(CapSdkError);
      expect({ status: error.status, code: error.code, requestId: error.requestId }).toEqual({
        status,
        code,
        requestId,
      });
      expect(error.message).toMatch(message);
      expect(error.message).toContain("POST /events/{id}/ack");
    });
  }

  it("keeps details and a production reason", async () => {
    const { c } = scriptedClient([json(400, { message: "bad", code: "validation_failed", reason: "limit" })]);
    const error = await c.poll().catch((e) => e);
    expect(error.details).toEqual({ reason: "limit" });
  });

  it("never puts the token in an error message", async () => {
    const { c } = scriptedClient([new TypeError("fetch failed")], { retry: false });
    const error = await c.poll().catch((e) => e);
    expect(error.code).toBe("network");
    expect(`${error.message} ${error.stack}`).not.toContain(TOKEN);
  });
});
