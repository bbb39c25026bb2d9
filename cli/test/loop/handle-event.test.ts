/**
 * One turn, with the CAP client and the adapter replaced by recording doubles: what is read,
 * spawned, synced and posted, under which keys, and what the ack says. The end-to-end tests cover
 * the same against the real kernel; these pin the edge cases cheaply.
 */
import {
  CancelledError,
  CapHttpError,
  type Event,
  type HandlerContext,
  type TraceContext,
} from "@commonly/cap-sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AdapterError } from "../../src/adapters/adapter-error.js";
import type { Adapter, SpawnContext, SpawnResult } from "../../src/adapters/types.js";
import { createTurnHandler, type TurnDeps } from "../../src/loop/handle-event.js";
import { createReporter } from "../../src/loop/reporter.js";
import { createLogger } from "../../src/state/logger.js";
import { createSessionStore } from "../../src/state/sessions.js";
import type { Terminal } from "../../src/ui/terminal.js";
import { tempHome } from "../helpers/temp-home.js";

let t: ReturnType<typeof tempHome>;
beforeEach(() => {
  t = tempHome();
});
afterEach(() => t.cleanup());

const event = (over: Partial<Event> = {}): Event => ({
  id: "evt_1",
  type: "message.posted",
  podId: "pod_1",
  attempts: 1,
  createdAt: "2026-11-29T18:00:00Z",
  payload: { messageId: "msg_h", content: "hi", author: { id: "u", kind: "human", name: "lily" } },
  ...over,
});

function setup(
  results: Array<SpawnResult | Error>,
  post: (key: string, content: string) => unknown = () => null,
  over: Partial<TurnDeps> & { signal?: AbortSignal; traceContext?: TraceContext } = {},
) {
  const spawns: Array<{ prompt: string; ctx: SpawnContext }> = [];
  const posts: Array<{ podId: string; content: string; replyToMessageId?: string; key: string }> = [];
  const syncs: unknown[] = [];
  const lines: string[] = [];
  const adapter: Adapter = {
    name: "fake",
    detect: async () => ({ path: "fake", version: "1" }),
    async spawn(prompt, ctx) {
      spawns.push({ prompt, ctx });
      const r = results[Math.min(spawns.length - 1, results.length - 1)]!;
      if (r instanceof Error) throw r;
      return r;
    },
  };
  const terminal: Terminal = { interactive: false, line: (l) => lines.push(l), spin: () => ({ stop() {} }) };
  const client = {
    getMemory: async () => ({
      content: "",
      schemaVersion: 2,
      sections: { long_term: { content: "likes tea" } },
    }),
    syncMemory: async (body: unknown) => {
      syncs.push(body);
      return { ok: true, schemaVersion: 2 };
    },
    postMessage: async (
      podId: string,
      m: { content: string; replyToMessageId?: string },
      o: { idempotencyKey: string },
    ) => {
      posts.push({ podId, ...m, key: o.idempotencyKey });
      const outcome = post(o.idempotencyKey, m.content);
      if (outcome instanceof Error) throw outcome;
      return { id: `msg_${posts.length}`, createdAt: "", replayed: false };
    },
  };
  const ctx = {
    signal: over.signal ?? new AbortController().signal,
    client,
    traceContext: over.traceContext,
  } as unknown as HandlerContext;
  const handle = createTurnHandler({
    adapter,
    adapterName: "claude",
    sessions: createSessionStore(t.home, "a1"),
    cwd: t.home,
    env: {},
    timeoutMs: 1000,
    maxMessageBytes: () => 100,
    kill: new AbortController().signal,
    cancelGraceMs: 5000,
    stopNote: false,
    report: createReporter({ name: "a1", logger: createLogger({ home: t.home, agentName: "a1" }), terminal }),
    ...over,
  });
  return { handle: (e: Event) => handle(e, ctx), spawns, posts, syncs, lines };
}

/** A turn whose event was cancelled: the signal has aborted, the CLI was killed by SIGTERM. */
function cancelled(reason: string, stopNote: boolean) {
  const abort = new AbortController();
  abort.abort(new CancelledError("evt_1", reason));
  const killed = new AdapterError("claude aborted and killed (SIGTERM)", {
    kind: "runtime",
    exitCode: null,
    signal: "SIGTERM",
    aborted: true,
  });
  return setup([killed], () => null, { signal: abort.signal, stopNote });
}

describe("the turn's trace context", () => {
  const TP = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
  const INHERITED = {
    TRACEPARENT: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
    TRACESTATE: "old=1",
  };
  // given the turn's context, want TRACEPARENT and TRACESTATE in the CLI's environment (inherited ones replaced).
  const cases: Array<[string, TraceContext | undefined, Record<string, string | undefined>]> = [
    [
      "with a tracestate",
      { traceparent: TP, tracestate: "congo=t61rcWkgMzE" },
      { TRACEPARENT: TP, TRACESTATE: "congo=t61rcWkgMzE" },
    ],
    ["without one", { traceparent: TP }, { TRACEPARENT: TP, TRACESTATE: undefined }],
    ["none: the inherited ones are unset", undefined, { TRACEPARENT: undefined, TRACESTATE: undefined }],
  ];
  it.each(cases)("%s", async (_, traceContext, want) => {
    const s = setup([{ text: "ok" }], () => null, { env: { ...INHERITED, KEEP: "1" }, traceContext });
    await s.handle(event());
    const env = s.spawns[0]!.ctx.env;
    expect({ TRACEPARENT: env.TRACEPARENT, TRACESTATE: env.TRACESTATE }).toEqual(want);
    expect(env.KEEP).toBe("1");
  });
});

describe("a cancelled turn", () => {
  it("posts nothing, says how the CLI stopped, and gives the CLI the cancel grace (not the timeout's)", async () => {
    const s = cancelled("wrong repository", false);
    await expect(s.handle(event())).rejects.toMatchObject({ aborted: true, signal: "SIGTERM" });
    expect(s.posts).toEqual([]);
    expect(s.lines).toContain("[a1] ■ claude stopped (SIGTERM); nothing posted");
    const grace = s.spawns[0]!.ctx.abortGraceMs!;
    expect(grace(new CancelledError("evt_1", "requested"))).toBe(5000);
    expect(grace("SIGINT")).toBeUndefined();
  });

  it("with --stop-note posts one short note, threaded, under a key of its own", async () => {
    const s = cancelled("superseded", true);
    await expect(s.handle(event())).rejects.toBeInstanceOf(AdapterError);
    expect(s.posts).toEqual([
      {
        podId: "pod_1",
        content: "Stopped: a newer message came in.",
        replyToMessageId: "msg_h",
        key: "stopped:evt_1",
      },
    ]);
    expect(s.lines).toContain("[a1] ■ claude stopped (SIGTERM); posted the stopped note");
  });
});

describe("one turn of the run loop", () => {
  it("gives the CLI the turn, the pod's memory and session, then posts the reply threaded, keyed by event", async () => {
    const s = setup([{ text: "hello lily", newSessionId: "sess-1" }, { text: "again" }]);
    expect(await s.handle(event())).toEqual({ outcome: "posted", messageId: "msg_1" });
    expect(s.spawns[0]!.prompt).toBe("lily (human): hi");
    expect(s.spawns[0]!.ctx).toMatchObject({ memoryLongTerm: "likes tea", sessionId: null, timeoutMs: 1000 });
    expect(s.spawns[0]!.ctx.env).toMatchObject({ COMMONLY_EVENT_ID: "evt_1", COMMONLY_POD_ID: "pod_1" });
    expect(s.posts).toEqual([
      { podId: "pod_1", content: "hello lily", replyToMessageId: "msg_h", key: "reply:evt_1:0" },
    ]);
    await s.handle(event({ id: "evt_2" }));
    expect(s.spawns[1]!.ctx.sessionId).toBe("sess-1");
    expect(s.lines).toContain('[a1] spawning: claude -p "lily (human): hi"');
    expect(s.lines).toContain("[a1] → posted (10 bytes)");
  });

  it("splits a long reply into parts with keys reply:<event>:0…n", async () => {
    const s = setup([{ text: `${"a".repeat(90)}\n\n${"b".repeat(90)}\n\n${"c".repeat(30)}` }]);
    const ack = await s.handle(event());
    expect(s.posts.map((p) => [p.key, p.content.length])).toEqual([
      ["reply:evt_1:0", 90],
      ["reply:evt_1:1", 90],
      ["reply:evt_1:2", 30],
    ]);
    expect(ack).toEqual({ outcome: "posted", messageId: "msg_3", details: { parts: 3 } });
    expect(s.lines.at(-1)).toBe("[a1] → posted in 3 messages (214 bytes)");
  });

  it.each([
    ["", "message.posted", "empty reply (nothing posted)"],
    ["NO_REPLY", "message.posted", "NO_REPLY (nothing posted)"],
    ["  HEARTBEAT_OK\n", "heartbeat.tick", "HEARTBEAT_OK (no work)"],
  ])("posts nothing for %j on %s and acks no_action", async (text, type, why) => {
    const s = setup([{ text }]);
    expect(await s.handle(event({ type }))).toEqual({ outcome: "no_action", reason: why });
    expect(s.posts).toEqual([]);
    expect(s.lines.at(-1)).toBe(`[a1] ${why}`);
  });

  it("syncs a returned memory summary as a private long_term patch from local-cli", async () => {
    const s = setup([{ text: "noted", memorySummary: "likes tea, not coffee" }]);
    await s.handle(event());
    expect(s.syncs).toEqual([
      {
        mode: "patch",
        sourceRuntime: "local-cli",
        sections: { long_term: { content: "likes tea, not coffee", visibility: "private" } },
      },
    ]);
  });

  it("counts a 422 idempotency_key_reused as posted by an earlier attempt", async () => {
    const reused = new CapHttpError({
      status: 422,
      code: "idempotency_key_reused",
      operation: "POST /pods/{podId}/messages",
    });
    const s = setup([{ text: "worded differently this time" }], () => reused);
    expect(await s.handle(event())).toEqual({ outcome: "posted" });
    expect(s.lines.at(-1)).toMatch(
      /→ posted \(28 bytes\) — 1 part\(s\) had been posted by an earlier attempt/,
    );
  });

  it("reuses the CLI's answer when the turn failed after it (no second spawn, same text posted)", async () => {
    let fail = true;
    const s = setup([{ text: "the answer" }], () => {
      if (fail) {
        fail = false;
        return new CapHttpError({ status: 503, code: "unavailable", operation: "POST" });
      }
      return null;
    });
    await expect(s.handle(event())).rejects.toMatchObject({ status: 503 });
    expect(await s.handle(event({ attempts: 2 }))).toEqual({ outcome: "posted", messageId: "msg_2" });
    expect(s.spawns).toHaveLength(1);
    expect(s.posts.map((p) => [p.key, p.content])).toEqual([
      ["reply:evt_1:0", "the answer"],
      ["reply:evt_1:0", "the answer"],
    ]);
  });

  it("lets an adapter failure through (no post), so runDriver neither acks nor forgets the circuit", async () => {
    const s = setup([Object.assign(new Error("claude exited with code 1: 429"), { kind: "rate_limit" })]);
    await expect(s.handle(event())).rejects.toMatchObject({ kind: "rate_limit" });
    expect(s.posts).toEqual([]);
  });
});
