import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { detectCommand, findExecutable } from "../../src/adapters/detect.js";
import { spawnDouble } from "../helpers/spawn-double.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "detect-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, mode: number, body = "#!/bin/sh\necho v1\n"): string {
  const path = join(dir, name);
  writeFileSync(path, body);
  chmodSync(path, mode);
  return path;
}

describe("findExecutable", () => {
  it("finds the first executable of that name on PATH and skips non-executable files", async () => {
    const a = join(dir, "a");
    const b = join(dir, "b");
    mkdirSync(a);
    mkdirSync(b);
    writeFileSync(join(a, "tool"), "x");
    chmodSync(join(a, "tool"), 0o644);
    writeFileSync(join(b, "tool"), "x");
    chmodSync(join(b, "tool"), 0o755);
    expect(await findExecutable("tool", { PATH: `${a}:${b}` })).toBe(join(b, "tool"));
    expect(await findExecutable("tool", { PATH: a })).toBeNull();
    expect(await findExecutable("tool", {})).toBeNull();
  });

  it("takes a name with a slash as a path relative to cwd", async () => {
    file("bot.sh", 0o755);
    expect(await findExecutable("./bot.sh", { PATH: "" }, dir)).toBe(join(dir, "bot.sh"));
    expect(await findExecutable("./missing.sh", { PATH: "" }, dir)).toBeNull();
  });
});

describe("detectCommand", () => {
  it("reports the first line of --version", async () => {
    file("tool", 0o755, "#!/bin/sh\nprintf 'tool 1.2.3\\nextra\\n'\n");
    expect(await detectCommand("tool", { env: { PATH: dir } })).toEqual({
      path: join(dir, "tool"),
      version: "tool 1.2.3",
    });
  });

  it("still finds a CLI whose --version fails", async () => {
    file("tool", 0o755, "#!/bin/sh\nexit 1\n");
    expect(await detectCommand("tool", { env: { PATH: dir } })).toEqual({
      path: join(dir, "tool"),
      version: "unknown",
    });
  });

  it("runs --version through _spawnImpl when given", async () => {
    file("tool", 0o755);
    const { impl, calls } = spawnDouble({ stdout: "9.9\n" });
    expect(await detectCommand("tool", { env: { PATH: dir }, _spawnImpl: impl })).toMatchObject({
      version: "9.9",
    });
    expect(calls[0]?.args).toEqual(["--version"]);
  });
});
