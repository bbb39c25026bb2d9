/**
 * The NOTIFY payload of a cancel on PostgreSQL (src/store/postgres/cancel-announce.ts): it reads back as
 * the agent and event it names, and a replica of an earlier kernel — which hands every "!" payload it does
 * not know to its auth announcer — neither drops its caches nor answers for it, nor takes it for an agent
 * id to wake.
 */
import type pg from "pg";
import { describe, expect, it } from "vitest";
import { AuthAnnouncer } from "../../src/store/postgres/auth-announce.js";
import { CANCEL_PREFIX, parseCancel } from "../../src/store/postgres/cancel-announce.js";

describe("the cancel announcement's payload", () => {
  it("names the agent and the event, and nothing else reads as one", () => {
    expect(parseCancel(`${CANCEL_PREFIX}agt_01ab/evt_02cd`)).toEqual({
      agentId: "agt_01ab",
      eventId: "evt_02cd",
    });
    for (const other of [
      "agt_01ab",
      "!auth:00ff",
      `${CANCEL_PREFIX}agt_01ab`,
      `${CANCEL_PREFIX}/evt_1`,
      `${CANCEL_PREFIX}agt/`,
    ])
      expect(parseCancel(other), other).toBeNull();
  });

  it("is a control message an earlier kernel's auth announcer ignores", () => {
    const sent: unknown[] = [];
    let dropped = 0;
    const pool = { query: async (...args: unknown[]) => sent.push(args) } as unknown as pg.Pool;
    const announcer = new AuthAnnouncer(pool, "chan", "public", "me|", () => dropped++);
    announcer.onControl(`${CANCEL_PREFIX}agt_1/evt_1`, "other|");
    expect([sent, dropped]).toEqual([[], 0]);
    // The same announcer does act on its own messages: the test above can fail.
    announcer.onControl("!auth:00ff", "other|");
    expect(dropped).toBe(1);
  });
});
