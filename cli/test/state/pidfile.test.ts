import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { acquirePidfile, isProcessAlive, PidfileBusyError } from "../../src/state/pidfile.js";
import { tempHome } from "../helpers/temp-home.js";

let t: ReturnType<typeof tempHome>;
let path: string;
beforeEach(() => {
  t = tempHome();
  path = join(t.home, "run", "my-claude.pid");
});
afterEach(() => t.cleanup());

/** The pid of a process that has exited and been reaped. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await once(child, "exit");
  return child.pid!;
}

describe("pidfile", () => {
  it("records our pid in run/<name>.pid (0600) and removes it on release", async () => {
    const lock = await acquirePidfile(path);
    expect(readFileSync(path, "utf8").trim()).toBe(String(process.pid));
    expect(statSync(path).mode & 0o777).toBe(0o600);
    await lock.release();
    expect(existsSync(path)).toBe(false);
  });

  it("refuses a second run while the recorded pid is alive", async () => {
    // A real, live process holds the file: this test process itself, recorded under another pid's lock.
    await acquirePidfile(path, { pid: process.pid });
    const err = await acquirePidfile(path, { pid: process.pid + 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PidfileBusyError);
    expect(err).toMatchObject({ pid: process.pid, path });
    expect((err as Error).message).toContain(`already running as pid ${process.pid}`);
  });

  it("takes over a stale pidfile left by a dead process", async () => {
    const dead = await deadPid();
    expect(isProcessAlive(dead)).toBe(false);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `${dead}\n`);
    const lock = await acquirePidfile(path);
    expect(readFileSync(path, "utf8").trim()).toBe(String(process.pid));
    await lock.release();
  });

  it("takes over a pidfile with garbage in it", async () => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, "not a pid");
    await acquirePidfile(path, { pid: 4242, isAlive: () => true });
    expect(readFileSync(path, "utf8").trim()).toBe("4242");
  });

  it("lets exactly one of two simultaneous starts win", async () => {
    const results = await Promise.allSettled([
      acquirePidfile(path, { pid: 1001, isAlive: () => true }),
      acquirePidfile(path, { pid: 1002, isAlive: () => true }),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(
      results.filter((r) => r.status === "rejected" && r.reason instanceof PidfileBusyError),
    ).toHaveLength(1);
  });

  it("lets exactly one of two simultaneous takeovers of a stale file win", async () => {
    mkdirSync(dirname(path), { recursive: true });
    for (let round = 0; round < 20; round += 1) {
      writeFileSync(path, "999999\n");
      const alive = (pid: number) => pid !== 999999;
      const results = await Promise.allSettled([
        acquirePidfile(path, { pid: 2001, isAlive: alive }),
        acquirePidfile(path, { pid: 2002, isAlive: alive }),
      ]);
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    }
  });

  it("does not remove a pidfile that another process has since taken over", async () => {
    const lock = await acquirePidfile(path, { pid: 3001 });
    writeFileSync(path, "3002\n");
    await lock.release();
    lock.releaseSync();
    expect(readFileSync(path, "utf8").trim()).toBe("3002");
  });

  it("treats a process that exists as alive and a reaped one as gone", async () => {
    expect(isProcessAlive(process.pid)).toBe(true);
    expect(isProcessAlive(await deadPid())).toBe(false);
  });
});
