/**
 * Manifest size (issue 30, finding 5): any user may publish, and thirty 1 MB manifests from a plain user made
 * the registry listing 28.6 MiB. A manifest whose JSON is over `limits.maxManifestBytes` (64 KiB) is `413
 * manifest_too_large` with `details` {max, size} and is not stored; one of exactly the limit is. Both stores.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_CONFIG } from "../../src/config.js";
import { makeWorld, type World } from "../helpers/world.js";
import { type OpenedStore, STORES } from "./stores-under-test.js";

const MAX = DEFAULT_CONFIG.limits.maxManifestBytes;

/** A manifest named `name` whose JSON is exactly `bytes` long. */
function manifestOf(name: string, bytes: number) {
  const bare = Buffer.byteLength(JSON.stringify({ name, description: "" }));
  return { name, description: "d".repeat(bytes - bare) };
}

describe.each(STORES)("manifest size on $name", ({ skip, open }) => {
  let opened: OpenedStore;
  let w: World;
  let userToken: string;
  beforeAll(async () => {
    if (skip) return;
    opened = await open();
    w = await makeWorld({ store: opened.store });
    userToken = (await w.adminApi("POST", "/users", { name: "mallory" })).json().token;
  });
  afterAll(async () => {
    if (skip) return;
    await w.app.close();
    await opened.close();
  });

  const publish = (manifest: unknown, token = userToken) =>
    w.adminApi("POST", "/registry/publish", manifest, token);
  const listing = async () => (await w.adminApi("GET", "/registry/agents")).body;

  it.skipIf(skip)("stores a manifest of exactly the limit and refuses one byte more", async () => {
    const at = await publish(manifestOf("at-limit", MAX));
    expect(at.statusCode).toBe(200);
    expect(Buffer.byteLength(JSON.stringify(at.json().manifest))).toBe(MAX);
    const before = await listing();
    const over = await publish(manifestOf("over-limit", MAX + 1));
    expect([over.statusCode, over.json()]).toEqual([
      413,
      { code: "manifest_too_large", message: expect.any(String), details: { max: MAX, size: MAX + 1 } },
    ]);
    expect(await listing()).toBe(before);
  });

  it.skipIf(skip)(
    "refuses an update that grows a published manifest past the limit, keeping the old one",
    async () => {
      expect((await publish(manifestOf("grows", 1000))).statusCode).toBe(200);
      const before = await listing();
      expect((await publish(manifestOf("grows", MAX + 1))).statusCode).toBe(413);
      expect(await listing()).toBe(before);
    },
  );

  it.skipIf(skip)(
    "refuses the audit's thirty 1 MB manifests from a plain user; the listing stays small",
    async () => {
      const before = await listing();
      for (let i = 0; i < 30; i++) {
        const res = await publish(manifestOf(`flood-${i}`, 1_000_000));
        expect([res.statusCode, res.json().code]).toEqual([413, "manifest_too_large"]);
      }
      expect(await listing()).toBe(before);
      expect(Buffer.byteLength(before)).toBeLessThan(4 * MAX);
    },
  );
});
