/**
 * The command line as a kernel implementer meets it: `list`, configuration errors (exit 2), an incomplete
 * run (exit 3), a SHOULD warning with and without --strict, what --only prints, --trace, --trigger-cmd,
 * and the built binary.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import {
  freshSqliteUrl,
  provisionConformance,
  startKernel,
  type TestKernel,
} from "@commonly/cap-kernel/testing";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allChecks } from "../src/checks/index.js";
import { type RunningProxy, reply, startProxy } from "./broken/proxy.js";
import { runCli } from "./support/run-cli.js";

const dir = mkdtempSync(join(tmpdir(), "cap-conformance-cli-"));
const ajv = new Ajv2020.default({ allErrors: true, strict: false });
addFormats.default(ajv);
const validateReport = ajv.compile(
  JSON.parse(readFileSync(join(import.meta.dirname, "..", "schema", "report-v1.schema.json"), "utf8")),
);
let kernel: TestKernel;
let db: string;
let fixturePath: string;
let fixture: Record<string, unknown>;
const proxies: RunningProxy[] = [];

beforeAll(async () => {
  db = freshSqliteUrl();
  kernel = await startKernel({ db, leaseSeconds: 1, maxAttempts: 3, provision: false });
  ({ path: fixturePath, fixture } = await provisionConformance({
    db,
    leaseSeconds: 1,
    maxAttempts: 3,
    baseUrl: kernel.url,
  }));
});
afterAll(async () => {
  for (const p of proxies) await p.close();
  await kernel?.stop();
});

const writeFixture = (name: string, doc: unknown) => {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(doc));
  return path;
};

describe("cap-conformance list", () => {
  it("prints every check with its level and requirement ids", async () => {
    const { code, stdout } = await runCli(["list"]);
    expect(code).toBe(0);
    for (const c of allChecks) expect(stdout).toContain(c.id);
    expect(stdout).toContain(`${allChecks.length} checks`);
    const json = JSON.parse((await runCli(["list", "--json"])).stdout) as { id: string; level: string }[];
    expect(json.find((c) => c.id === "events.first-delivery-shape")?.level).toBe("MUST");
  });
});

describe("cap-conformance run", () => {
  it("exits 2 without a fixture", async () => {
    const r = await runCli(["run"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--fixture/);
  });

  it("exits 2 when the kernel cannot be reached", async () => {
    const r = await runCli(["run", "--fixture", fixturePath, "--url", "http://127.0.0.1:9"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot reach the kernel/);
  });

  it("exits 2 when the kernel rejects a fixture token", async () => {
    const agents = (fixture.agents as { token: string }[]).map((a, i) =>
      i === 1 ? { ...a, token: `cm_agent_${"0".repeat(64)}` } : a,
    );
    const r = await runCli(["run", "--fixture", writeFixture("bad-token.json", { ...fixture, agents })]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/rejects the fixture token/);
  });

  it("exits 2 naming the step and its requirement when the fixture queues cannot be drained", async () => {
    const proxy = await startProxy(kernel.url, {
      request: (req) =>
        req.method === "GET" && req.url.pathname.endsWith("/events")
          ? reply(500, { code: "internal", message: "boom" })
          : req,
    });
    proxies.push(proxy);
    const r = await runCli(["run", "--fixture", fixturePath, "--url", proxy.url, "--only", "info.discovery"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /draining the fixture agents' queues before the run: setup failed: polling for events \(CAP-EVT-1\) — HTTP 500/,
    );
  });

  it("exits 3 when a check cannot run (no /info, no lease configured)", async () => {
    const proxy = await startProxy(kernel.url, {
      request: (req) =>
        req.url.pathname.endsWith("/info")
          ? reply(404, { code: "route_not_found", message: "No such route." })
          : req,
    });
    proxies.push(proxy);
    const { leaseSeconds: _l, maxAttempts: _m, ...rest } = fixture;
    const path = writeFixture("no-lease.json", { ...rest, baseUrl: proxy.url });
    const r = await runCli(["run", "--fixture", path, "--only", "leases.redelivered-after-expiry"]);
    expect(r.stdout).toMatch(/lease duration unknown/);
    expect(r.code).toBe(3);
  });

  it("warns on a SHOULD failure, and fails on it under --strict", async () => {
    const proxy = await startProxy(kernel.url, {
      response(req, res) {
        const events = (res.json as { events?: Record<string, unknown>[] } | undefined)?.events;
        if (req.url.pathname.endsWith("/events") && events) for (const e of events) delete e.leaseExpiresAt;
        return res;
      },
    });
    proxies.push(proxy);
    const args = [
      "run",
      "--fixture",
      fixturePath,
      "--url",
      proxy.url,
      "--only",
      "events.first-delivery-shape",
    ];
    const lenient = await runCli(args);
    expect(lenient.stdout).toMatch(/CAP-EVT-7 SHOULD \(warning\)/);
    expect(lenient.code).toBe(0);
    expect((await runCli([...args, "--strict"])).code).toBe(1);
  });

  it("lists only the checks --only selected, counts the rest in one line, and keeps them in the JSON report", async () => {
    const file = join(dir, "only.json");
    const r = await runCli([
      "run",
      "--fixture",
      fixturePath,
      "--only",
      "info.discovery",
      "--only",
      "memory.envelope",
      "--report",
      `json=${file}`,
      "--report",
      `junit=${join(dir, "only.xml")}`,
    ]);
    expect(r.code, r.stdout).toBe(0);
    const rest = allChecks.length - 2;
    expect(r.stdout.match(/^\[\d+\/\d+\] .*$/gm)?.map((l) => l.split(" ").slice(0, 3).join(" "))).toEqual([
      "[1/2] ✓ info.discovery",
      "[2/2] ✓ memory.envelope",
    ]);
    expect(r.stdout).not.toMatch(/not selected by --only/);
    expect(r.stdout).toContain(`${rest} checks not selected (--only info.discovery memory.envelope)`);
    expect(r.stdout).toMatch(
      /^2 checks: 2 passed, 0 failed, 0 warnings, 0 skipped, 0 incomplete .* conformant \(MUST \+ SHOULD\) \(exit 0\)$/m,
    );
    const report = JSON.parse(readFileSync(file, "utf8")) as {
      summary: { checks: number; skipped: number; notSelected: number };
      checks: { id: string; status: string; selected?: boolean; reason?: string }[];
    };
    expect(validateReport(report), JSON.stringify(validateReport.errors)).toBe(true);
    expect(report.summary).toMatchObject({ checks: 2, skipped: 0, notSelected: rest });
    const left = report.checks.filter((c) => c.selected === false);
    expect(left).toHaveLength(rest);
    expect(left.every((c) => c.status === "skipped" && /^not selected by --only/.test(c.reason ?? ""))).toBe(
      true,
    );
    expect(readFileSync(join(dir, "only.xml"), "utf8").match(/<testcase /g)).toHaveLength(2);
  });

  it("records redacted HTTP exchanges with --trace", async () => {
    const file = join(dir, "trace.json");
    const r = await runCli([
      "run",
      "--fixture",
      fixturePath,
      "--only",
      "memory.envelope",
      "--trace",
      "--report",
      `json=${file}`,
    ]);
    expect(r.code).toBe(0);
    const text = readFileSync(file, "utf8");
    const report = JSON.parse(text) as { checks: { id: string; exchanges?: unknown[] }[] };
    expect(report.checks.find((c) => c.id === "memory.envelope")?.exchanges?.length).toBeGreaterThan(0);
    expect(text).not.toMatch(/cm_agent_[0-9a-f]{64}/);
    expect(text).toContain("<redacted:a>");
  });

  it("makes events with --trigger-cmd (here: cap-kernel emit)", async () => {
    const kernelBin = join(
      dirname(createRequire(import.meta.url).resolve("@commonly/cap-kernel/package.json")),
      "dist",
      "bin.js",
    );
    const cmd = `node ${kernelBin} emit --db ${db} --agent {agent} --pod {pod} --type task.assigned --payload "{\\"taskId\\":\\"$CAP_NONCE\\",\\"title\\":\\"conformance\\"}"`;
    const r = await runCli([
      "run",
      "--fixture",
      fixturePath,
      "--trigger-cmd",
      cmd,
      "--only",
      "events.first-delivery-shape",
      "--only",
      "leases.redelivered-after-expiry",
    ]);
    expect(r.stdout).toMatch(/2 passed/);
    expect(r.code).toBe(0);
  });

  it("works as the built binary, with settings from CAP_CONFORMANCE_* variables", async () => {
    const bin = join(import.meta.dirname, "..", "dist", "bin.js");
    const { stdout } = await promisify(execFile)(process.execPath, [bin, "run"], {
      env: { ...process.env, CAP_CONFORMANCE_FIXTURE: fixturePath, CAP_CONFORMANCE_ONLY: "info.discovery" },
    });
    expect(stdout).toMatch(/1 passed/);
    expect(stdout).toMatch(/exit 0/);
  });
});
