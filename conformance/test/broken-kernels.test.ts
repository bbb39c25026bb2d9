/**
 * The suite proves its strength: in front of the real reference kernel, a proxy that breaks exactly one
 * behaviour makes the suite fail (exit 1) naming the requirement that behaviour violates. A transparent
 * proxy first shows the proxy itself breaks nothing.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allChecks } from "../src/checks/index.js";
import { loadManifest } from "../src/requirements.js";
import { matches } from "../src/runner/select.js";
import type { BrokenEnv } from "./broken/env.js";
import { brokenKernels } from "./broken/index.js";
import { startProxy } from "./broken/proxy.js";
import { provisionFixture, type RunningKernel, sqliteUrl, startKernel } from "./support/kernel.js";
import { runCli } from "./support/run-cli.js";

let kernel: RunningKernel;
let fixturePath: string;
let env: BrokenEnv;
const out = mkdtempSync(join(tmpdir(), "cap-conformance-broken-"));

beforeAll(async () => {
  const db = sqliteUrl();
  kernel = await startKernel({ db, leaseSeconds: 1, maxAttempts: 3 });
  const { path, fixture } = await provisionFixture({
    db,
    leaseSeconds: 1,
    maxAttempts: 3,
    baseUrl: kernel.url,
  });
  fixturePath = path;
  const agents = fixture.agents as { token: string }[];
  env = {
    tokens: { a: agents[0]!.token, b: agents[1]!.token, c: agents[2]!.token },
    pods: fixture.pods as BrokenEnv["pods"],
  };
});
afterAll(async () => {
  await kernel?.stop();
});

interface Report {
  summary: { exitCode: number };
  checks: {
    id: string;
    status: string;
    reason?: string;
    failures: { requirement: string; message: string }[];
  }[];
}

async function suiteThrough(url: string, only: string[], name: string) {
  const file = join(out, `${name}.json`);
  const baseline = join(import.meta.dirname, "reference-kernel.expected-failures.yaml");
  const args = [
    "run",
    "--fixture",
    fixturePath,
    "--url",
    url,
    "--report",
    `json=${file}`,
    "--baseline",
    baseline,
  ];
  const result = await runCli([...args, ...only.flatMap((o) => ["--only", o])]);
  return { result, report: JSON.parse(readFileSync(file, "utf8")) as Report };
}

describe("broken kernels", () => {
  it("cover every family that has a MUST-level check", async () => {
    const manifest = await loadManifest();
    const mustFamilies = new Set(
      allChecks
        .filter((c) => c.verifies.some((id) => manifest.byId.get(id)?.level === "MUST"))
        .map((c) => c.family),
    );
    const exercised = new Set(
      allChecks
        .filter((c) => brokenKernels.some((bk) => bk.only.some((p) => matches(c, p))))
        .map((c) => c.family),
    );
    expect([...mustFamilies].filter((f) => !exercised.has(f))).toEqual([]);
  });

  it("pass the whole suite through a transparent proxy (the proxy alone breaks nothing)", async () => {
    const proxy = await startProxy(kernel.url, {});
    try {
      const { result, report } = await suiteThrough(proxy.url, [], "transparent");
      const bad = report.checks.filter((c) => c.status !== "passed" && c.status !== "expected-failure");
      expect(
        bad.map(
          (c) => `${c.id} ${c.status} ${c.reason ?? ""} ${c.failures.map((f) => f.message).join("; ")}`,
        ),
      ).toEqual([]);
      expect(result.code).toBe(0);
    } finally {
      await proxy.close();
    }
  });

  for (const [i, bk] of brokenKernels.entries()) {
    it(`fail the suite naming ${bk.breaks} when the kernel ${bk.name}`, async () => {
      const proxy = await startProxy(kernel.url, bk.make(env));
      try {
        const { result, report } = await suiteThrough(proxy.url, bk.only, `broken-${i}`);
        const named = report.checks.flatMap((c) => c.failures.map((f) => f.requirement));
        expect(named, result.stdout.slice(-2500)).toContain(bk.breaks);
        expect(result.code).toBe(1);
      } finally {
        await proxy.close();
      }
    });
  }
});
