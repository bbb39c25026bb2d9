/**
 * The poll answer written as text (src/profiles/events-answer.ts): every event must read back exactly as
 * the object CAP describes (`{id, _id, type, podId, payload, attempts, createdAt, leaseExpiresAt?}`), with
 * the payload written as the store's JSON text. A table of given/want, then generated payloads.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { eventsAnswer } from "../../src/profiles/events-answer.js";
import type { DeliveredEvent } from "../../src/store/records.js";

const T = Date.UTC(2026, 11, 2, 6, 0, 0, 123);
const TP = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

function delivered(over: Partial<DeliveredEvent> = {}): DeliveredEvent {
  return {
    id: "evt_1",
    agentId: "agt_1",
    podId: "pod_1",
    type: "message.posted",
    payloadJson: '{"content":"hi"}',
    state: "leased",
    attempts: 1,
    attemptBase: 0,
    createdAt: T,
    leaseExpiresAt: T + 30_000,
    ackedAt: null,
    result: null,
    failedAt: null,
    failReason: null,
    releasedAttempts: null,
    releaseReason: null,
    cancelReason: null,
    cancelledAt: null,
    cancelledByKind: null,
    cancelledById: null,
    cancelledAttempts: null,
    supersedes: null,
    traceparent: null,
    tracestate: null,
    availableAt: null,
    ...over,
  };
}

/** The answer as CAP describes it, built as an object and stringified: what the text must read as. */
function asObject(events: DeliveredEvent[], typeOf = (e: DeliveredEvent) => e.type) {
  return {
    events: events.map((e) => ({
      id: e.id,
      _id: e.id,
      type: typeOf(e),
      podId: e.podId,
      payload: JSON.parse(e.payloadJson),
      attempts: e.attempts,
      createdAt: new Date(e.createdAt).toISOString(),
      ...(e.leaseExpiresAt !== null ? { leaseExpiresAt: new Date(e.leaseExpiresAt).toISOString() } : {}),
      ...(e.traceparent
        ? {
            traceContext: {
              traceparent: e.traceparent,
              ...(e.tracestate ? { tracestate: e.tracestate } : {}),
            },
          }
        : {}),
    })),
  };
}

describe("eventsAnswer", () => {
  it.each<[string, DeliveredEvent[], string]>([
    ["no events", [], '{"events":[]}'],
    [
      "one leased event",
      [delivered()],
      '{"events":[{"id":"evt_1","_id":"evt_1","type":"message.posted","podId":"pod_1","payload":{"content":"hi"},' +
        '"attempts":1,"createdAt":"2026-12-02T06:00:00.123Z","leaseExpiresAt":"2026-12-02T06:00:30.123Z"}]}',
    ],
    [
      "no lease: no leaseExpiresAt key",
      [delivered({ leaseExpiresAt: null, payloadJson: "null", attempts: 0 })],
      '{"events":[{"id":"evt_1","_id":"evt_1","type":"message.posted","podId":"pod_1","payload":null,' +
        '"attempts":0,"createdAt":"2026-12-02T06:00:00.123Z"}]}',
    ],
    [
      "two events, strings that need escaping, the payload text as stored",
      [
        delivered({ id: 'evt_"q"', type: "x\ny", payloadJson: '{"a":"\\u00e9\\"","b":[1,2.5e-7]}' }),
        delivered({ id: "evt_2", podId: "pod\\2", payloadJson: '"\\ud800"', attempts: 3 }),
      ],
      '{"events":[{"id":"evt_\\"q\\"","_id":"evt_\\"q\\"","type":"x\\ny","podId":"pod_1","payload":{"a":"\\u00e9\\"","b":[1,2.5e-7]},' +
        '"attempts":1,"createdAt":"2026-12-02T06:00:00.123Z","leaseExpiresAt":"2026-12-02T06:00:30.123Z"},' +
        '{"id":"evt_2","_id":"evt_2","type":"message.posted","podId":"pod\\\\2","payload":"\\ud800",' +
        '"attempts":3,"createdAt":"2026-12-02T06:00:00.123Z","leaseExpiresAt":"2026-12-02T06:00:30.123Z"}]}',
    ],
    [
      "a trace context, with and without tracestate",
      [
        delivered({ traceparent: TP, tracestate: 'a=1,b="2\\' }),
        delivered({ id: "evt_2", traceparent: TP, leaseExpiresAt: null }),
      ],
      '{"events":[{"id":"evt_1","_id":"evt_1","type":"message.posted","podId":"pod_1","payload":{"content":"hi"},' +
        '"attempts":1,"createdAt":"2026-12-02T06:00:00.123Z","leaseExpiresAt":"2026-12-02T06:00:30.123Z",' +
        `"traceContext":{"traceparent":"${TP}","tracestate":"a=1,b=\\"2\\\\"}},` +
        '{"id":"evt_2","_id":"evt_2","type":"message.posted","podId":"pod_1","payload":{"content":"hi"},' +
        `"attempts":1,"createdAt":"2026-12-02T06:00:00.123Z","traceContext":{"traceparent":"${TP}"}}]}`,
    ],
  ])("%s", (_, events, want) => {
    expect(eventsAnswer(events)).toBe(want);
    expect(JSON.parse(eventsAnswer(events))).toEqual(asObject(events));
  });

  it("writes the type a profile gives", () => {
    const events = [delivered({ type: "heartbeat.tick" }), delivered({ id: "evt_2" })];
    const typeOf = (e: DeliveredEvent) => (e.type === "heartbeat.tick" ? "heartbeat" : e.type);
    expect(JSON.parse(eventsAnswer(events, typeOf))).toEqual(asObject(events, typeOf));
  });

  it("leaves traceContext out for a profile that does not advertise trace-context", () => {
    const events = [delivered({ traceparent: TP, tracestate: "a=1" })];
    expect(JSON.parse(eventsAnswer(events, undefined, false)).events[0]).not.toHaveProperty("traceContext");
    expect(JSON.parse(eventsAnswer(events)).events[0].traceContext).toEqual({
      traceparent: TP,
      tracestate: "a=1",
    });
  });

  it("reads back as the CAP Event object for any stored payload and any ids", () => {
    const event = fc.record({
      id: fc.string(),
      podId: fc.string(),
      type: fc.string(),
      payload: fc.jsonValue(),
      attempts: fc.nat(),
      createdAt: fc.integer({ min: 0, max: 4_102_444_800_000 }),
      leaseExpiresAt: fc.option(fc.integer({ min: 0, max: 4_102_444_800_000 })),
      traceparent: fc.option(fc.string()),
      tracestate: fc.option(fc.string()),
    });
    fc.assert(
      fc.property(fc.array(event, { maxLength: 5 }), (given) => {
        const events = given.map(({ payload, ...e }) =>
          delivered({ ...e, payloadJson: JSON.stringify(payload) }),
        );
        expect(JSON.parse(eventsAnswer(events))).toEqual(asObject(events));
      }),
    );
  });
});
