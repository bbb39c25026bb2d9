/**
 * The suite proves its strength: in front of the real reference kernel, a proxy that breaks exactly one
 * behaviour makes the suite fail (exit 1) naming the requirement that behaviour violates. A transparent
 * proxy first shows the proxy itself breaks nothing. A proxy that breaks a step many checks rely on (a
 * post, a memory write, an ack) is named by that step's requirement in every check, never by the checks'.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  freshSqliteUrl,
  provisionConformance,
  type StoreOutageSwitch,
  startKernel,
  storeOutageSwitch,
  type TestKernel,
} from "@commonly/cap-kernel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allChecks } from "../src/checks/index.js";
import { loadManifest } from "../src/requirements.js";
import { matches } from "../src/runner/select.js";
import type { BrokenEnv } from "./broken/env.js";
import { brokenKernels } from "./broken/index.js";
import { type Mutation, reply, startProxy } from "./broken/proxy.js";
import { runCli } from "./support/run-cli.js";

let kernel: TestKernel;
let outage: StoreOutageSwitch;
let fixturePath: string;
let env: BrokenEnv;
const out = mkdtempSync(join(tmpdir(), "cap-conformance-broken-"));

beforeAll(async () => {
  const db = freshSqliteUrl();
  // The fixture's store-outage hook: this process takes the SQLite file's write lock (outage.* checks).
  outage = await storeOutageSwitch(db);
  kernel = await startKernel({ db, leaseSeconds: 1, maxAttempts: 3, provision: false });
  const { path, fixture } = await provisionConformance({
    db,
    leaseSeconds: 1,
    maxAttempts: 3,
    baseUrl: kernel.url,
    storeOutage: outage.commands,
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
  await outage?.close();
});

interface Report {
  summary: { exitCode: number };
  checks: {
    id: string;
    status: string;
    reason?: string;
    verifies: string[];
    failures: { requirement: string; message: string; setup?: string }[];
  }[];
  requirements: { id: string; status: string }[];
}

async function suiteThrough(url: string, only: string[], name: string, extra: string[] = []) {
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
  const result = await runCli([...args, ...only.flatMap((o) => ["--only", o]), ...extra]);
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
        const { result, report } = await suiteThrough(
          proxy.url,
          bk.only,
          `broken-${i}`,
          bk.strict ? ["--strict"] : [],
        );
        const named = report.checks.flatMap((c) => c.failures.map((f) => f.requirement));
        expect(named, result.stdout.slice(-2500)).toContain(bk.breaks);
        expect(result.code).toBe(1);
      } finally {
        await proxy.close();
      }
    });
  }
});

/** A kernel without the queue verbs: /info leaves them out, their routes are unknown, pollId is ignored. */
const withoutQueueVerbs: Mutation = {
  request(req) {
    const path = req.url.pathname.replace(/^\/api\/agents\/runtime/, "");
    if (req.method === "POST" && (/^\/events\/[^/]+\/release$/.test(path) || path === "/events/ack"))
      return reply(404, { code: "route_not_found", message: "No such route." });
    if (path === "/events") req.url.searchParams.delete("pollId");
    return req;
  },
  response(req, res) {
    const path = req.url.pathname.replace(/^\/api\/agents\/runtime/, "");
    const info = res.json as { features?: string[] } | undefined;
    if (path === "/info" && Array.isArray(info?.features))
      info.features = info.features.filter((f) => !["release", "batch-ack", "poll-replay"].includes(f));
    if (path === "/events") delete res.headers["cache-control"];
    return res;
  },
};

describe("a kernel that does not advertise release, batch-ack or poll-replay", () => {
  const only = ["release.*", "batch-ack.*", "poll-replay.*", "info.features-honest"];

  it("gets their checks reported as skipped, never passed, and passes the rest", async () => {
    const proxy = await startProxy(kernel.url, withoutQueueVerbs);
    try {
      const { result, report } = await suiteThrough(proxy.url, only, "without-queue-verbs");
      const verbs = report.checks.filter((c) => /^(release|batch-ack|poll-replay)\./.test(c.id));
      expect(verbs.length).toBeGreaterThanOrEqual(10);
      expect(verbs.filter((c) => c.status !== "skipped").map((c) => `${c.id} ${c.status}`)).toEqual([]);
      expect(verbs.every((c) => /does not advertise/.test(c.reason ?? ""))).toBe(true);
      expect(report.checks.find((c) => c.id === "info.features-honest")?.status).toBe("passed");
      expect(result.code, result.stdout.slice(-2000)).toBe(0);
    } finally {
      await proxy.close();
    }
  });

  it("fails their checks when the configuration claims them", async () => {
    const proxy = await startProxy(kernel.url, withoutQueueVerbs);
    try {
      const claims = ["--claim", "release", "--claim", "batch-ack", "--claim", "poll-replay"];
      const picked = ["release.returns-at-next-poll", "batch-ack.settles-each-item", "poll-replay.no-store"];
      const { result, report } = await suiteThrough(proxy.url, picked, "claimed-without-queue-verbs", claims);
      const named = report.checks.flatMap((c) => c.failures.map((f) => f.requirement));
      expect(named).toEqual(expect.arrayContaining(["CAP-REL-1", "CAP-BATCH-1", "CAP-REPLAY-6"]));
      expect(result.code).toBe(1);
    } finally {
      await proxy.close();
    }
  });
});

/** A kernel without `cancel`: /info leaves it out and its routes are unknown. */
const withoutCancel: Mutation = {
  request(req) {
    const path = req.url.pathname.replace(/^\/api\/agents\/runtime/, "");
    if (/^\/events\/[^/]+\/(cancel|cancellation)$/.test(path))
      return reply(404, { code: "route_not_found", message: "No such route." });
    return req;
  },
  response(req, res) {
    const info = res.json as { features?: string[]; doubleTexting?: unknown } | undefined;
    if (req.url.pathname.endsWith("/info") && Array.isArray(info?.features)) {
      info.features = info.features.filter((f) => f !== "cancel");
      delete info.doubleTexting;
    }
    return res;
  },
};

describe("a kernel that does not advertise cancel", () => {
  it("gets the cancel checks reported as skipped, never passed, and passes info.features-honest", async () => {
    const proxy = await startProxy(kernel.url, withoutCancel);
    try {
      const only = ["cancel.*", "info.features-honest"];
      const { result, report } = await suiteThrough(proxy.url, only, "without-cancel");
      const cancel = report.checks.filter((c) => c.id.startsWith("cancel."));
      expect(cancel.length).toBeGreaterThanOrEqual(15);
      expect(cancel.filter((c) => c.status !== "skipped").map((c) => `${c.id} ${c.status}`)).toEqual([]);
      expect(cancel.every((c) => /does not advertise "cancel"/.test(c.reason ?? ""))).toBe(true);
      const ids = report.requirements.filter((r) => /^CAP-CANCEL-([1-9]|1[0-5])$/.test(r.id));
      expect(ids.filter((r) => r.status === "passed").map((r) => r.id)).toEqual([]);
      expect(report.checks.find((c) => c.id === "info.features-honest")?.status).toBe("passed");
      expect(result.code, result.stdout.slice(-2000)).toBe(0);
    } finally {
      await proxy.close();
    }
  });

  it("fails the cancel checks when the configuration claims it", async () => {
    const proxy = await startProxy(kernel.url, withoutCancel);
    try {
      const picked = ["cancel.own-event", "cancel.watch-cancelled-at-once"];
      const { result, report } = await suiteThrough(proxy.url, picked, "claimed-without-cancel", [
        "--claim",
        "cancel",
      ]);
      const named = report.checks.flatMap((c) => c.failures.map((f) => f.requirement));
      expect(named).toEqual(expect.arrayContaining(["CAP-CANCEL-1"]));
      expect(result.code).toBe(1);
    } finally {
      await proxy.close();
    }
  });
});

const route = (method: string, path: RegExp) => (req: { method: string; url: URL }) =>
  req.method === method && path.test(req.url.pathname.replace(/^\/api\/agents\/runtime/, ""));
const isPost = route("POST", /^\/pods\/[^/]+\/messages$/);
const isPut = route("PUT", /^\/memory$/);
const isAck = route("POST", /^\/events\/[^/]+\/ack$/);

/** Steps many checks rely on, each broken in a way only its own requirement forbids. */
const brokenSteps: { name: string; names: string; only: string[]; atLeast: number; mutation: Mutation }[] = [
  {
    name: "answers every post with 200 instead of 201 (the whole suite)",
    names: "CAP-MSG-1",
    only: [],
    atLeast: 15,
    mutation: { response: (req, res) => (isPost(req) && res.status === 201 ? { ...res, status: 200 } : res) },
  },
  {
    name: "answers every memory PUT with 201 instead of 200",
    names: "CAP-MEM-8",
    only: ["memory", "isolation.memory-per-identity", "compat.unknown-body-fields-ignored"],
    atLeast: 8,
    mutation: { response: (req, res) => (isPut(req) && res.status === 200 ? { ...res, status: 201 } : res) },
  },
  {
    name: "answers every ack with 204 and no body",
    names: "CAP-ACK-1",
    only: ["ack", "release.fenced"],
    atLeast: 4,
    mutation: {
      response: (req, res) =>
        isAck(req) && res.status === 200 ? { ...res, status: 204, json: undefined, body: "" } : res,
    },
  },
];

describe("a kernel that breaks a step other checks rely on", () => {
  for (const [i, step] of brokenSteps.entries())
    it(`is named ${step.names} in every check when it ${step.name}`, async () => {
      const proxy = await startProxy(kernel.url, step.mutation);
      try {
        const { result, report } = await suiteThrough(proxy.url, step.only, `broken-step-${i}`);
        const failed = report.checks.filter((c) => c.failures.length > 0);
        expect(failed.length, result.stdout.slice(-2500)).toBeGreaterThanOrEqual(step.atLeast);
        // Every failure names the broken step's requirement; no check blames an id of its own instead.
        expect(
          failed.flatMap((c) =>
            c.failures
              .filter((f) => f.requirement !== step.names)
              .map((f) => `${c.id}: ${f.requirement} ${f.message}`),
          ),
        ).toEqual([]);
        // Where the check does not verify that requirement, the failure is its setup's, and says so.
        for (const c of failed.filter((x) => !x.verifies.includes(step.names))) {
          expect(
            c.failures.every((f) => f.setup !== undefined && f.message.startsWith("setup failed: ")),
            c.id,
          ).toBe(true);
          expect(c.reason, c.id).toMatch(new RegExp(`^setup failed: .* \\(${step.names}\\)$`));
          expect(result.stdout).toMatch(
            new RegExp(`✗ ${c.id.replace(/\./g, "\\.")} \\d+ ms  setup failed: ${step.names}`),
          );
          for (const own of c.verifies)
            expect(report.requirements.find((r) => r.id === own)?.status, `${c.id} ${own}`).not.toBe(
              "failed",
            );
        }
        expect(report.requirements.find((r) => r.id === step.names)?.status).toBe("failed");
        expect(result.code).toBe(1);
      } finally {
        await proxy.close();
      }
    });
});
