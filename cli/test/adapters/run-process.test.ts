import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eventually } from "@commonly/cap-kernel/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AdapterError } from "../../src/adapters/adapter-error.js";
import { runProcess } from "../../src/adapters/run-process.js";
import { alive } from "../helpers/fake-cli.js";
import { spawnDouble } from "../helpers/spawn-double.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "run-process-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const node = (script: string, extra: Partial<Parameters<typeof runProcess>[0]> = {}) =>
  runProcess({ command: process.execPath, args: ["-e", script], cwd: dir, env: process.env, ...extra });

async function rejection(p: Promise<unknown>): Promise<AdapterError> {
  const err = await p.then(
    () => {
      throw new Error("expected a rejection");
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AdapterError);
  return err as AdapterError;
}

describe("runProcess", () => {
  it("resolves with the whole stdout and stderr of a successful run", async () => {
    const r = await node("process.stdout.write('é'.repeat(70000)); console.error('warn')");
    expect(r.exitCode).toBe(0);
    // 140 000 bytes arrive in several chunks; decoding once keeps every two-byte character whole.
    expect(r.stdout).toBe("é".repeat(70000));
    expect(r.stderr.trim()).toBe("warn");
    expect(r.truncated).toBe(false);
  });

  it("passes `input` on stdin and closes it, and gives /dev/null when there is none", async () => {
    const echo = "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>process.stdout.write('['+s+']'))";
    expect((await node(echo, { input: "hello" })).stdout).toBe("[hello]");
    expect((await node(echo)).stdout).toBe("[]");
  });

  it("rejects a non-zero exit with a classified AdapterError and the stderr tail", async () => {
    const err = await rejection(node("console.error('API Error: 429 rate limit'); process.exit(1)"));
    expect(err.kind).toBe("rate_limit");
    expect(err.exitCode).toBe(1);
    expect(err.stderrTail).toContain("429 rate limit");
    expect(err.message).toContain("exited with code 1: API Error: 429 rate limit");
  });

  it("keeps only the first maxStdoutBytes of stdout and says so", async () => {
    const r = await node("process.stdout.write('a'.repeat(5000))", { maxStdoutBytes: 100 });
    expect(r.stdout).toBe("a".repeat(100));
    expect(r.truncated).toBe(true);
  });

  it("keeps only the tail of a huge stderr", async () => {
    const err = await rejection(
      node("process.stderr.write('x'.repeat(200000) + 'THE END'); process.exit(2)"),
    );
    expect(err.stderrTail.endsWith("THE END")).toBe(true);
    expect(err.stderrTail.length).toBeLessThanOrEqual(4096);
  });

  it("kills a process that outlives the timeout with SIGTERM and rejects with kind timeout", async () => {
    const started = Date.now();
    const err = await rejection(node("setInterval(() => {}, 1000)", { timeoutMs: 200 }));
    expect(err.kind).toBe("timeout");
    expect(err.signal).toBe("SIGTERM");
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("escalates to SIGKILL after the grace when SIGTERM is ignored", async () => {
    const pidFile = join(dir, "pid");
    const script = `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid));
      process.on('SIGTERM', () => require('fs').appendFileSync(${JSON.stringify(pidFile)}, ' sigterm'));
      setInterval(() => {}, 1000)`;
    const err = await rejection(node(script, { timeoutMs: 1500, killGraceMs: 300 }));
    expect(err.kind).toBe("timeout");
    expect(err.signal).toBe("SIGKILL");
    const [pid, seen] = readFileSync(pidFile, "utf8").split(" ");
    expect(seen).toBe("sigterm");
    expect(alive(Number(pid))).toBe(false);
  });

  it("kills the whole process group, so a grandchild ignoring SIGTERM dies too", async () => {
    const pidFile = join(dir, "grandchild");
    const grandchild = "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)";
    const script = `const c = require('child_process').spawn(process.execPath, ['-e', ${JSON.stringify(grandchild)}], {stdio: 'inherit'});
      require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(c.pid)); setInterval(() => {}, 1000)`;
    const err = await rejection(node(script, { timeoutMs: 2000, killGraceMs: 200 }));
    expect(err.kind).toBe("timeout");
    const pid = Number(readFileSync(pidFile, "utf8"));
    try {
      // The child died of SIGTERM at once; the grandchild gets its SIGKILL when the grace ends.
      await eventually(() => !alive(pid), `process ${pid} is gone`, { timeoutMs: 5000 });
    } finally {
      if (alive(pid)) process.kill(pid, "SIGKILL"); // do not leak it when the assertion fails
    }
  });

  it("kills the process when the signal aborts, marking the error as aborted", async () => {
    const ac = new AbortController();
    const pidFile = join(dir, "pid");
    const p = node(
      `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000)`,
      {
        signal: ac.signal,
      },
    );
    await eventually(() => readFileSync(pidFile, "utf8") !== "", "the child wrote its pid", {
      timeoutMs: 5000,
    });
    ac.abort(new Error("shutting down"));
    const err = await rejection(p);
    expect(err.aborted).toBe(true);
    expect(err.kind).toBe("runtime");
    expect(err.signal).toBe("SIGTERM");
    expect(alive(Number(readFileSync(pidFile, "utf8")))).toBe(false);
  });

  it("after an abort, sends SIGKILL after the grace abortGraceMs gives for its reason, not killGraceMs", async () => {
    const ac = new AbortController();
    const pidFile = join(dir, "pid");
    const script = `process.on('SIGTERM', () => {}); require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid));
      setInterval(() => {}, 1000)`;
    const p = node(script, {
      signal: ac.signal,
      killGraceMs: 600_000, // a stop that waited for this would time the test out
      abortGraceMs: (reason) => (reason === "cancelled" ? 200 : undefined),
    });
    await eventually(() => readFileSync(pidFile, "utf8") !== "", "the child wrote its pid", {
      timeoutMs: 5000,
    });
    ac.abort("cancelled");
    const err = await rejection(p);
    expect(err).toMatchObject({ aborted: true, signal: "SIGKILL" });
    expect(alive(Number(readFileSync(pidFile, "utf8")))).toBe(false);
  });

  it("does not start anything when the signal is already aborted", async () => {
    const { impl, calls } = spawnDouble({});
    const err = await rejection(
      runProcess({ command: "x", args: [], cwd: dir, env: {}, signal: AbortSignal.abort(), spawnImpl: impl }),
    );
    expect(err.aborted).toBe(true);
    expect(calls).toHaveLength(0);
  });

  it("reports a missing executable as not_found", async () => {
    const err = await rejection(
      runProcess({ command: "no-such-cli-xyz", args: [], cwd: dir, env: { PATH: dir } }),
    );
    expect(err.kind).toBe("not_found");
    expect(err.message).toContain("no-such-cli-xyz not found on PATH");
  });

  it("reports a missing working directory as configuration, not as a missing CLI", async () => {
    const err = await rejection(
      runProcess({ command: process.execPath, args: ["-e", ""], cwd: join(dir, "gone"), env: process.env }),
    );
    expect(err.kind).toBe("configuration");
    expect(err.message).toContain("working directory");
  });

  it("spawns without a shell, in its own process group, with stdin ignored unless input is given", async () => {
    const { impl, calls } = spawnDouble({ stdout: "ok" });
    await runProcess({ command: "cli", args: ["a b", "$HOME"], cwd: dir, env: { A: "1" }, spawnImpl: impl });
    await runProcess({ command: "cli", args: [], cwd: dir, env: {}, input: "in", spawnImpl: impl });
    expect(calls[0]).toMatchObject({
      command: "cli",
      args: ["a b", "$HOME"],
      options: { cwd: dir, env: { A: "1" }, shell: false, detached: true, stdio: ["ignore", "pipe", "pipe"] },
    });
    expect(calls[1]?.options.stdio).toEqual(["pipe", "pipe", "pipe"]);
    expect(calls[1]?.stdin).toBe("in");
  });

  it("resolves a failed run when check is false, leaving the decision to the caller", async () => {
    const r = await node("process.stdout.write('partial'); process.exit(4)", { check: false });
    expect(r).toMatchObject({ exitCode: 4, stdout: "partial" });
  });
});

describe("runProcess with arguments spawn refuses", () => {
  it("turns a synchronous spawn failure into an AdapterError", async () => {
    const err = await rejection(
      runProcess({ command: process.execPath, args: ["a\u0000b"], cwd: dir, env: process.env }),
    );
    expect(err.kind).toBe("runtime");
    expect(err.message).toContain("could not be started");
  });
});
