/**
 * Memory over HTTP, all of brief §2.6 / CAP-MEM-1..15: envelope, stamping, merges, mirror, dedup key with
 * the worked example (A, A writes once; A, B, A writes three times), identity scope, unknown sections.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { manualClock } from "../../src/clock.js";
import { capValidator } from "../helpers/schemas.js";
import { makeWorld, type World } from "../helpers/world.js";

let w: World;
const clock = manualClock(Date.UTC(2026, 10, 29, 12, 0, 0));
beforeEach(async () => {
  clock.set(Date.UTC(2026, 10, 29, 12, 0, 0));
  w = await makeWorld({ clock });
});
afterEach(async () => {
  await w.app.close();
});

const get = (token = w.alpha.token) => w.cap(token, "GET", "/memory").then((r) => r.json());
const put = (body: unknown, token = w.alpha.token) => w.cap(token, "PUT", "/memory", body);
const sync = (body: unknown, token = w.alpha.token) => w.cap(token, "POST", "/memory/sync", body);
const A = {
  mode: "patch",
  sourceRuntime: "local-cli",
  sections: { long_term: { visibility: "private", content: "Lily is allergic to kiwi." } },
};
const B = {
  mode: "patch",
  sourceRuntime: "local-cli",
  sections: { daily: [{ date: "2026-11-29", content: "Shipped leases." }] },
};

describe("memory", () => {
  it("answers a fresh agent with an empty envelope, never 404", async () => {
    const res = await w.cap(w.alpha.token, "GET", "/memory");
    expect([res.statusCode, res.json()]).toEqual([200, { content: "", sections: {}, schemaVersion: 2 }]);
    expect(capValidator("MemoryEnvelope")(res.json())).toBe(true);
  });

  it("stamps updatedAt and byteSize (UTF-8 bytes) and defaults visibility, discarding client values", async () => {
    const res = await put({
      sections: { soul: { content: "héllo ✓", updatedAt: "1999-01-01T00:00:00Z", byteSize: 1 } },
      schemaVersion: 7,
    });
    expect([res.statusCode, res.json()]).toEqual([200, { ok: true, schemaVersion: 2 }]);
    const m = await get();
    expect(m.sections.soul).toEqual({
      content: "héllo ✓",
      visibility: "private",
      updatedAt: "2026-11-29T12:00:00.000Z",
      byteSize: 10,
    });
    expect(m.schemaVersion).toBe(2);
    expect(capValidator("MemoryEnvelope")(m)).toBe(true);
  });

  it("merges single sections per key on PUT and replaces arrays whole", async () => {
    await put({
      sections: {
        soul: { content: "s1" },
        daily: [
          { date: "2026-11-28", content: "d1" },
          { date: "2026-11-29", content: "d2" },
        ],
      },
    });
    await put({
      sections: {
        shared: { content: "sh", visibility: "pod" },
        daily: [{ date: "2026-11-30", content: "d3" }],
      },
    });
    const m = await get();
    expect(Object.keys(m.sections).sort()).toEqual(["daily", "shared", "soul"]);
    expect(m.sections.soul.content).toBe("s1");
    expect(m.sections.shared.visibility).toBe("pod");
    expect(m.sections.daily).toEqual([{ date: "2026-11-30", content: "d3", visibility: "private" }]);
  });

  it("mirrors a long_term write into content unless content is sent too", async () => {
    await put({ sections: { long_term: { content: "LT" } } });
    expect((await get()).content).toBe("LT");
    await put({ content: "explicit", sections: { long_term: { content: "LT2" } } });
    const m = await get();
    expect([m.content, m.sections.long_term.content]).toEqual(["explicit", "LT2"]);
    await put({ content: "v1 only" });
    expect((await get()).content).toBe("v1 only");
    expect((await get()).sections.long_term.content).toBe("LT2");
  });

  it("rejects a PUT with neither content nor sections", async () => {
    const res = await put({ sourceRuntime: "x" });
    expect([res.statusCode, res.json().code]).toEqual([400, "validation_failed"]);
  });

  it("rejects unknown section keys with unknown_memory_section listing them, and writes nothing", async () => {
    for (const call of [
      () => put({ sections: { soul: { content: "s" }, diary: {}, x: 1 } }),
      () => sync({ mode: "full", sections: { diary: {} } }),
    ]) {
      const res = await call();
      expect([res.statusCode, res.json().code]).toEqual([400, "unknown_memory_section"]);
      expect(res.json().details.sections.sort()).toEqual(expect.arrayContaining(["diary"]));
    }
    expect(await get()).toEqual({ content: "", sections: {}, schemaVersion: 2 });
  });

  it("stores sourceRuntime unchanged", async () => {
    await put({ content: "c", sourceRuntime: "claude-code/1.2" });
    expect((await get()).sourceRuntime).toBe("claude-code/1.2");
  });

  it("replaces every section on a full sync", async () => {
    await put({ sections: { soul: { content: "s" }, shared: { content: "sh" } } });
    const res = await sync({ mode: "full", sections: { long_term: { content: "only" } } });
    expect([res.statusCode, res.json()]).toEqual([200, { ok: true, schemaVersion: 2 }]);
    const m = await get();
    expect(Object.keys(m.sections)).toEqual(["long_term"]);
    expect(m.content).toBe("only");
  });

  it("patch-merges daily by date and relationships by otherInstanceId, keeping other sections", async () => {
    await put({
      sections: {
        soul: { content: "s" },
        daily: [
          { date: "2026-11-28", content: "old" },
          { date: "2026-11-29", content: "keep" },
        ],
        relationships: [{ otherInstanceId: "i1", notes: "n1" }],
      },
    });
    clock.advance(1000);
    await sync({
      mode: "patch",
      sections: {
        daily: [
          { date: "2026-11-28", content: "new", visibility: "pod" },
          { date: "2026-11-30", content: "added" },
        ],
        relationships: [
          { otherInstanceId: "i2", notes: "n2" },
          { otherInstanceId: "i1", notes: "n1b" },
        ],
      },
    });
    const m = await get();
    expect(m.sections.soul.content).toBe("s");
    expect(m.sections.daily).toEqual([
      { date: "2026-11-28", content: "new", visibility: "pod" },
      { date: "2026-11-29", content: "keep", visibility: "private" },
      { date: "2026-11-30", content: "added", visibility: "private" },
    ]);
    expect(
      m.sections.relationships.map((r: { otherInstanceId: string; notes: string }) => [
        r.otherInstanceId,
        r.notes,
      ]),
    ).toEqual([
      ["i1", "n1b"],
      ["i2", "n2"],
    ]);
    expect(m.sections.relationships[1].updatedAt).toBe("2026-11-29T12:00:01.000Z");
  });

  it("dedups a sync equal to the last applied one: A, A writes once", async () => {
    expect((await sync(A)).json()).toEqual({ ok: true, schemaVersion: 2 });
    const before = await w.store.getMemory(w.alpha.agentId);
    expect(before?.syncKey).toBe(
      "2026-11-29|local-cli|8714e0f54b9c9159a5a6a94b63c17612c142dad3d82dc65bbb60541601b5cad6",
    );
    clock.advance(5000);
    expect((await sync(A)).json()).toEqual({ ok: true, schemaVersion: 2, deduped: true });
    expect((await w.store.getMemory(w.alpha.agentId))?.updatedAt).toBe(before?.updatedAt);
  });

  it("writes A, B, A three times (only the last applied key is kept), matching the worked example's hashes", async () => {
    const writes: number[] = [];
    for (const body of [A, B, A]) {
      clock.advance(1000);
      expect((await sync(body)).json().deduped).toBeUndefined();
      writes.push((await w.store.getMemory(w.alpha.agentId))!.updatedAt);
    }
    expect(new Set(writes).size).toBe(3);
    expect((await w.store.getMemory(w.alpha.agentId))?.syncKey).toMatch(/8714e0f5/);
    clock.advance(1000);
    await sync(B);
    expect((await w.store.getMemory(w.alpha.agentId))?.syncKey).toBe(
      "2026-11-29|local-cli|f893cdad28eec430966fe7810739c51dfbab3bedf9d77b427bd52b9a935e2d37",
    );
  });

  it("applies the same sync again after a PUT cleared the key, and on the next UTC day", async () => {
    await sync(A);
    await put({ content: "x" });
    expect((await sync(A)).json().deduped).toBeUndefined();
    expect((await sync(A)).json().deduped).toBe(true);
    clock.advance(24 * 3600 * 1000);
    expect((await sync(A)).json().deduped).toBeUndefined();
  });

  it("treats key order and whitespace as irrelevant to the dedup key", async () => {
    await sync(A);
    const reordered = `{"sections":{"long_term":{"content":"Lily is allergic to kiwi.","visibility":"private"}},  "sourceRuntime":"local-cli","mode":"patch"}`;
    const res = await w.req({
      method: "POST",
      url: "/api/agents/runtime/memory/sync",
      token: w.alpha.token,
      payload: reordered,
      headers: { "content-type": "application/json" },
    });
    expect(res.json().deduped).toBe(true);
  });

  it("belongs to the identity: another token of the same identity reads it, another agent does not", async () => {
    await put({ content: "mine" });
    const second = await w.adminApi("POST", `/registry/pods/${w.podA.id}/agents/alpha/runtime-tokens`, {});
    expect((await get(second.json().token)).content).toBe("mine");
    expect((await get(w.beta.token)).content).toBe("");
    await w.adminApi("POST", "/registry/install", { agentName: "alpha", podId: w.podB.id });
    const viaB = await w.adminApi("POST", `/registry/pods/${w.podB.id}/agents/alpha/runtime-tokens`, {});
    expect((await get(viaB.json().token)).content).toBe("mine");
  });

  it("never loses a write to a concurrent one", async () => {
    const keys = ["soul", "long_term", "dedup_state", "shared", "runtime_meta"];
    await Promise.all(keys.map((k) => put({ sections: { [k]: { content: k } } })));
    expect(Object.keys((await get()).sections).sort()).toEqual([...keys].sort());
  });
});
