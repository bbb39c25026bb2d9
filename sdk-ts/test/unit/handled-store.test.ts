import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryHandledStore } from "../../src/handled-store.js";
import { JsonFileHandledStore } from "../../src/node.js";

const posted = { outcome: "posted" as const, messageId: "m" };
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempFile(): string {
  const dir = mkdtempSync(join(tmpdir(), "cap-sdk-store-"));
  dirs.push(dir);
  return join(dir, "nested", "handled.json");
}

describe("MemoryHandledStore", () => {
  it("remembers results and forgets the least recently used id beyond its capacity", () => {
    const store = new MemoryHandledStore({ capacity: 2 });
    store.set("a", posted);
    store.set("b", { outcome: "acknowledged" });
    expect(store.get("a")).toEqual(posted); // a is now the most recent
    store.set("c", { outcome: "skipped" });
    expect([store.get("a"), store.get("b"), store.get("c")]).toEqual([
      posted,
      undefined,
      { outcome: "skipped" },
    ]);
    expect(store.size).toBe(2);
  });

  it("defaults to 1000 ids", () => {
    const store = new MemoryHandledStore();
    for (let i = 0; i < 1500; i++) store.set(`e${i}`, posted);
    expect(store.size).toBe(1000);
    expect(store.get("e499")).toBeUndefined();
    expect(store.get("e500")).toEqual(posted);
  });
});

describe("JsonFileHandledStore", () => {
  it("survives a restart: a new instance reads what the last one wrote", () => {
    const path = tempFile();
    new JsonFileHandledStore(path).set("evt_1", posted);
    expect(new JsonFileHandledStore(path).get("evt_1")).toEqual(posted);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it("stays bounded on disk", () => {
    const path = tempFile();
    const store = new JsonFileHandledStore(path, { capacity: 3 });
    for (let i = 0; i < 10; i++) store.set(`e${i}`, posted);
    const onDisk = JSON.parse(readFileSync(path, "utf8"));
    expect(onDisk.handled.map((e: [string]) => e[0])).toEqual(["e7", "e8", "e9"]);
  });

  // given a file's content, want an empty store and no throw.
  for (const [name, content] of [
    ["corrupt JSON", "{nope"],
    ["a wrong shape", '{"handled": 3}'],
    ["bad entries", '{"version":1,"handled":[["a",{}],[1,{"outcome":"posted"}]]}'],
  ]) {
    it(`starts empty from ${name}`, () => {
      const path = tempFile();
      new JsonFileHandledStore(path).set("x", posted); // creates the directory
      writeFileSync(path, content as string);
      expect(new JsonFileHandledStore(path).size).toBe(0);
    });
  }

  it("starts empty when the file does not exist", () => {
    expect(new JsonFileHandledStore(tempFile()).size).toBe(0);
  });
});
