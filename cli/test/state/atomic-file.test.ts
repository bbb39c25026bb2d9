import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readJson, writeFileAtomic, writeJsonAtomic } from "../../src/state/atomic-file.js";
import { tempHome } from "../helpers/temp-home.js";

let t: ReturnType<typeof tempHome>;
beforeEach(() => {
  t = tempHome();
});
afterEach(() => t.cleanup());

describe("atomic files", () => {
  it("creates parent directories 0700 and the file 0600, leaving no temporary file", async () => {
    const path = join(t.home, "a", "b", "f.json");
    await writeJsonAtomic(path, { x: 1 });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(t.home, "a", "b")).mode & 0o777).toBe(0o700);
    expect(readdirSync(join(t.home, "a", "b"))).toEqual(["f.json"]);
    expect(await readJson(path, null)).toEqual({ x: 1 });
  });

  it("replaces an existing file whole, resetting a loosened mode", async () => {
    const path = join(t.home, "f");
    writeFileSync(path, "old content that is longer", { mode: 0o644 });
    await writeFileAtomic(path, "new");
    expect(readFileSync(path, "utf8")).toBe("new");
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it("returns the fallback for a missing file and an error naming a corrupt one", async () => {
    expect(await readJson(join(t.home, "missing.json"), { d: true })).toEqual({ d: true });
    writeFileSync(join(t.home, "bad.json"), "{not json");
    await expect(readJson(join(t.home, "bad.json"), {})).rejects.toThrow(/bad\.json is not valid JSON/);
  });

  it("keeps concurrent writers from interleaving: the file is always one of the writes", async () => {
    const path = join(t.home, "f.json");
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => writeJsonAtomic(path, { i, pad: "x".repeat(5000) })),
    );
    const v = await readJson<{ i: number }>(path, { i: -1 });
    expect(v.i).toBeGreaterThanOrEqual(0);
    expect(readdirSync(t.home)).toEqual(["f.json"]);
  });
});
