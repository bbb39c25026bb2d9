/**
 * One format per stream, as the README promises: `serve` writes only JSON log lines on stdout and only
 * "cap-kernel: …" lines for a person on stderr, from start (a new database announced) to SIGTERM.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { eventually } from "../../src/testing/index.js";
import { BIN } from "../helpers/process.js";

const isJson = (line: string) => {
  try {
    return typeof JSON.parse(line) === "object";
  } catch {
    return false;
  }
};

describe("cap-kernel serve output", () => {
  it("writes JSON lines on stdout and human lines on stderr, from start to shutdown", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cap-streams-"));
    const child = spawn(process.execPath, [BIN, "serve", "--port", "0", "--db", "sqlite:k.db"], {
      cwd: dir,
      env: { ...process.env, CAP_LOG_LEVEL: "info" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const exited = new Promise<number | null>((r) => child.on("close", r));
    const url = await eventually(() => /listening on (http:\/\/\S+)/.exec(stderr)?.[1], "the banner");
    // A request answered, one refused, one unmatched: each may log.
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect((await fetch(`${url}/api/agents/runtime/events`)).status).toBe(401);
    expect((await fetch(`${url}/no-such-route`)).status).toBe(404);
    await eventually(() => stdout.includes("\n"), "a JSON log line on stdout");
    child.kill("SIGTERM");
    expect(await exited).toBe(0);

    const out = stdout.split("\n").filter(Boolean);
    const err = stderr.split("\n").filter(Boolean);
    expect(out.length).toBeGreaterThan(0);
    expect(out.filter((l) => !isJson(l))).toEqual([]);
    expect(err.filter((l) => isJson(l) || !l.startsWith("cap-kernel: "))).toEqual([]);
    expect(err[0]).toBe("cap-kernel: creating a new database at k.db (--db sqlite:k.db)");
    expect(err).toContain("cap-kernel: SIGTERM, shutting down");
    expect(existsSync(join(dir, "k.db"))).toBe(true);
  });
});
