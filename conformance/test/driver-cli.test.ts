/**
 * `cap-conformance driver` as a driver author meets it: configuration errors (exit 2), `--wait` (print
 * the environment, wait for a driver started by hand), baselines that can only shrink, the `list` of
 * driver checks. Drivers are the control and broken drivers of test/broken-drivers/.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../src/cli.js";
import { driverChecks } from "../src/driver/scenarios/index.js";
import { scratch } from "./support/driver.js";
import { runCli } from "./support/run-cli.js";

const dir = join(import.meta.dirname, "broken-drivers");
const node = (file: string) => `"${process.execPath}" "${join(dir, file)}"`;
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
});

describe("cap-conformance driver configuration", () => {
  it("exits 2 without --command or --wait, and with both", async () => {
    const neither = await runCli(["driver"]);
    expect(neither.code).toBe(2);
    expect(neither.stderr).toMatch(/--command/);
    const both = await runCli(["driver", "--wait", "--command", "true"]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/not both/);
    expect((await runCli(["driver", "--command", "true", "--time-scale", "0"])).code).toBe(2);
  });

  it("reports a driver that never polls as incomplete (exit 3) with its stderr", async () => {
    const r = await runCli([
      "driver",
      "--command",
      "echo 'no such driver' >&2; exit 7",
      "--only",
      "driver.polling.idle",
      "--startup-timeout",
      "2",
    ]);
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/made no poll within 2000 ms; stderr: no such driver/);
    // --only lists what it ran, and counts the rest in one line.
    expect(r.stdout.match(/^\[\d+\/\d+\]/gm)).toEqual(["[1/1]"]);
    expect(r.stdout).not.toMatch(/not selected by --only/);
    expect(r.stdout).toContain(`${driverChecks.length - 1} checks not selected (--only driver.polling.idle)`);
    expect(r.stdout).toMatch(
      /^1 check: 0 passed, 0 failed, 0 warnings, 0 skipped, 1 incomplete .* incomplete \(exit 3\)$/m,
    );
  });
});

describe("cap-conformance driver --wait", () => {
  it("prints CAP_URL, CAP_TOKEN and CAP_POD_ID, judges the driver started with them, and ends incomplete for the scenario --wait cannot run", async () => {
    let started = false;
    const out: string[] = [];
    const code = await main(
      [
        "driver",
        "--wait",
        "--only",
        "driver.handling.*",
        "--only",
        "driver.features.*",
        "--startup-timeout",
        "30",
      ],
      {
        stdout: {
          write: (s) => {
            out.push(s);
            const env = Object.fromEntries(
              [...s.matchAll(/^export (\w+)='([^']*)'$/gm)].map((m) => [m[1], m[2]]),
            );
            if (!started && env.CAP_TOKEN) {
              started = true;
              expect(env.CAP_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
              expect(env.CAP_POD_ID).toMatch(/^pod_/);
              expect(env.COMMONLY_AGENT_TOKEN).toBe(env.CAP_TOKEN);
              const child = spawn(process.execPath, [join(dir, "driver.mjs")], {
                env: { ...process.env, ...env },
                stdio: "ignore",
              });
              children.push(child);
            }
          },
          isTTY: false,
        },
        stderr: { write: () => {}, isTTY: false },
        env: {},
      },
    );
    expect(started).toBe(true);
    // driver.features.unadvertised applies and verifies MUSTs, but needs a fresh start: not verified, so
    // the run is incomplete (exit 3), not conformant.
    expect(code, out.join("")).toBe(3);
    expect(out.join("")).toMatch(/✓ driver\.handling\.message-and-mention/);
    expect(out.join("")).toMatch(/\? driver\.features\.unadvertised .*run with --command/);
    expect(out.join("")).toMatch(/— incomplete \(exit 3\)/);
  });
});

describe("cap-conformance driver --baseline", () => {
  const baseline = (entries: string) => {
    const path = join(scratch(), "expected-failures.yaml");
    writeFileSync(path, `expectedFailures:\n${entries}`);
    return path;
  };

  it("lets a known failure pass the run, and fails the run once it is fixed", async () => {
    const known = baseline("  - requirement: CAP-DRV-9\n    reason: replies go to the home pod until 2.0\n");
    const args = ["--only", "driver.handling.*", "--baseline", known];
    const broken = await runCli(["driver", "--command", node("wrong-pod.mjs"), ...args]);
    expect(broken.code, broken.stdout).toBe(0);
    expect(broken.stdout).toMatch(/expected failure/);
    const fixed = await runCli(["driver", "--command", node("driver.mjs"), ...args]);
    expect(fixed.code).toBe(1);
    expect(fixed.stdout).toMatch(/stale baseline entry \(now passes; remove it\): CAP-DRV-9/);
  });

  it("refuses an entry without a reason: a configuration error (exit 2) naming the entry, before any scenario", async () => {
    const unexplained = baseline(
      "  - requirement: CAP-DRV-9\n  - check: driver.handling.message-and-mention\n",
    );
    const r = await runCli(["driver", "--command", node("driver.mjs"), "--baseline", unexplained]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /baseline .*expected-failures\.yaml: entry 0 \(requirement CAP-DRV-9\) has no "reason"/,
    );
    expect(r.stdout).toBe("");
  });
});

describe("cap-conformance list", () => {
  it("lists every driver check with its level and requirement ids", async () => {
    const r = await runCli(["list"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Driver checks (cap-conformance driver):");
    for (const c of driverChecks) expect(r.stdout).toContain(c.id);
    expect(r.stdout).toContain(`${driverChecks.length} driver checks`);
    const json = JSON.parse((await runCli(["list", "--json"])).stdout) as {
      id: string;
      suite: string;
      level: string;
    }[];
    expect(json.find((c) => c.id === "driver.auth.revoked-stops")).toMatchObject({
      suite: "driver",
      level: "MUST",
    });
    expect(json.find((c) => c.id === "driver.auth.revoked-tells")?.level).toBe("SHOULD");
  });
});
