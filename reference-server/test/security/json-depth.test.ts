/**
 * JSON depth (issue 30, finding 3): a body nested deeper than `limits.maxJsonDepth` is `400 json_too_deep`
 * on every route that takes a body — CAP and admin, every write operation the two OpenAPI documents list —
 * and nothing is applied; one at the limit is not refused for its depth. The audit's own bodies (about
 * 4,200 levels, ~25 KB, which answered 500) are among them. Both stores.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeWorld, type World } from "../helpers/world.js";
import { nestedText, writeOperations } from "./json-bodies.js";
import { type OpenedStore, STORES } from "./stores-under-test.js";

const MAX = 64;

describe.each(STORES)("JSON depth on $name", ({ name, skip, open }) => {
  let opened: OpenedStore;
  let w: World;
  let fingerprint: () => Promise<string>;
  beforeAll(async () => {
    if (skip) return;
    opened = await open();
    w = await makeWorld({ store: opened.store });
    const s = opened.store;
    fingerprint = async () =>
      JSON.stringify([
        await s.queueStats(),
        await s.listMessages({ podId: w.podA.id, limit: 1000 }),
        await s.getMemory(w.alpha.agentId),
        await s.listDecisions({ podId: w.podA.id }),
        (await s.listPods()).length,
        (await s.listUsers()).length,
        (await s.listInstallations({})).length,
        (await s.listRegistryAgents()).length,
      ]);
  });
  afterAll(async () => {
    if (skip) return;
    await w.app.close();
    await opened.close();
  });

  const send = (method: string, url: string, body: string, headers: Record<string, string> = {}) =>
    w.app.inject({
      method: method as "POST",
      url,
      headers: { "content-type": "application/json", ...headers },
      payload: body,
    });

  /** A URL for an operation template, with the token its surface takes (path ids need not exist). */
  const target = (template: string) => {
    const url = template
      .replace("{podId}", w.podA.id)
      .replace("{agentName}", "alpha")
      .replace(/\{[A-Za-z]+\}/g, "x_0123456789");
    const cap = url.startsWith("/api/agents/runtime");
    const auth: Record<string, string> =
      url === "/api/joins/redeem" ? {} : { authorization: `Bearer ${cap ? w.alpha.token : w.adminToken}` };
    return { url, auth };
  };

  it.skipIf(skip)(
    `refuses a body one level past the limit, and the audit's 4,200 levels, on every write route with 400 json_too_deep (${skip ?? name})`,
    async () => {
      const ops = writeOperations();
      expect(ops.length).toBeGreaterThan(20);
      const before = await fingerprint();
      for (const [method, template] of ops) {
        const { url, auth } = target(template);
        for (const depth of [MAX, 4200]) {
          const res = await send(method, url, `{"content":"x","n":${nestedText(depth)}}`, auth);
          expect([method, template, depth, res.statusCode, res.json()]).toEqual([
            method,
            template,
            depth,
            400,
            { code: "json_too_deep", message: expect.any(String), details: { maxDepth: MAX } },
          ]);
        }
      }
      expect(await fingerprint()).toBe(before);
    },
  );

  it.skipIf(skip)(
    "refuses a deep message post with an Idempotency-Key, and the key stays unused",
    async () => {
      const url = `/api/agents/runtime/pods/${w.podA.id}/messages`;
      const auth = { authorization: `Bearer ${w.alpha.token}`, "idempotency-key": "deep-1" };
      const deep = await send("POST", url, `{"content":"x","metadata":${nestedText(4200)}}`, auth);
      expect([deep.statusCode, deep.json().code]).toEqual([400, "json_too_deep"]);
      const fresh = await send("POST", url, `{"content":"after","metadata":${nestedText(MAX - 1)}}`, auth);
      expect(fresh.statusCode).toBe(201);
      expect(fresh.headers["idempotent-replayed"]).toBeUndefined();
      const [stored] = await opened.store.listMessages({ podId: w.podA.id, limit: 1 });
      expect([stored?.content, stored?.metadata]).toEqual(["after", JSON.parse(nestedText(MAX - 1))]);
    },
  );

  it.skipIf(skip)(
    "accepts bodies exactly at the limit on posts, admin inject and memory writes",
    async () => {
      const at = MAX - 1; // the body's own object is the first level
      const post = await send(
        "POST",
        `/api/agents/runtime/pods/${w.podA.id}/messages`,
        `{"content":"at the limit","metadata":${nestedText(at)}}`,
        { authorization: `Bearer ${w.alpha.token}` },
      );
      expect(post.statusCode).toBe(201);
      const inject = await send(
        "POST",
        "/api/admin/events",
        `{"agentName":"alpha","podId":"${w.podA.id}","type":"t","payload":${nestedText(at)}}`,
        { authorization: `Bearer ${w.adminToken}` },
      );
      expect(inject.statusCode).toBe(201);
      // soul is the third level: {"sections":{"soul":{…, "n": …}}}
      const put = await send(
        "PUT",
        "/api/agents/runtime/memory",
        `{"sections":{"soul":{"content":"s","n":${nestedText(MAX - 3)}}}}`,
        {
          authorization: `Bearer ${w.alpha.token}`,
        },
      );
      expect(put.json().code).not.toBe("json_too_deep");
    },
  );
});

describe("a configured JSON depth", () => {
  it("applies a configured limit, not the default, and says which in details", async () => {
    const small = await makeWorld({ config: { limits: { maxJsonDepth: 4 } } });
    try {
      const url = `/api/agents/runtime/pods/${small.podA.id}/messages`;
      const auth = { authorization: `Bearer ${small.alpha.token}` };
      const ok = await small.app.inject({
        method: "POST",
        url,
        headers: auth,
        payload: { content: "x", metadata: { a: { b: {} } } },
      });
      expect(ok.statusCode).toBe(201);
      const over = await small.app.inject({
        method: "POST",
        url,
        headers: auth,
        payload: { content: "x", metadata: { a: { b: { c: [] } } } },
      });
      expect([over.statusCode, over.json()]).toEqual([
        400,
        { code: "json_too_deep", message: expect.any(String), details: { maxDepth: 4 } },
      ]);
    } finally {
      await small.app.close();
    }
  });
});
