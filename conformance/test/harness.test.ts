/** Pure parts of the harness: check selection, curl reproducers, report rendering. */
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import type { Check } from "../src/check.js";
import { curlFor } from "../src/http/curl.js";
import type { Exchange } from "../src/http/exchange.js";
import { redactSecrets } from "../src/http/exchange.js";
import { renderHtml } from "../src/reports/html.js";
import { renderJunit } from "../src/reports/junit.js";
import { renderMarkdown } from "../src/reports/markdown.js";
import { judge } from "../src/runner/judge.js";
import type { RunReport } from "../src/runner/results.js";
import { select } from "../src/runner/select.js";
import { failure, manifest, result } from "./support/fake.js";

const check = (id: string, verifies: string[], feature?: Check["feature"]): Check => ({
  id,
  family: id.split(".")[0] as Check["family"],
  title: id,
  verifies,
  ...(feature ? { feature } : {}),
  run: async () => {},
});

describe("selecting checks", () => {
  const checks = [
    check("events.a", ["CAP-EVT-1"]),
    check("events.b", ["CAP-EVT-7"]),
    check("renew.c", ["CAP-LEASE-7"], "renew"),
  ];
  const run = (o: Partial<Parameters<typeof select>[2]>) =>
    select(checks, manifest, { only: [], skip: [], level: "should", features: new Set(["renew"]), ...o }).map(
      (s) => (s.skip ? `${s.check.id}: ${s.skip.split(" ")[0]}` : s.check.id),
    );

  it("runs everything applicable by default", () =>
    expect(run({})).toEqual(["events.a", "events.b", "renew.c"]));
  it("matches --only against ids, families and requirement ids with globs", () => {
    expect(run({ only: ["CAP-EVT-*"] })).toEqual(["events.a", "events.b", "renew.c: not"]);
    expect(run({ only: ["renew"] })).toEqual(["events.a: not", "events.b: not", "renew.c"]);
  });
  it("drops SHOULD-only checks under --level must", () =>
    expect(run({ level: "must" })).toEqual(["events.a", "events.b: verifies", "renew.c"]));
  it("skips a feature-gated check the kernel does not advertise", () =>
    expect(run({ features: new Set() })).toEqual(["events.a", "events.b", "renew.c: the"]));
});

describe("curl reproducers", () => {
  const secret = `cm_agent_${"ab".repeat(32)}`;
  const x: Exchange = {
    seq: 1,
    as: "a",
    method: "POST",
    url: "http://k/api/agents/runtime/pods/p/messages",
    requestHeaders: {
      authorization: redactSecrets(`Bearer ${secret}`, new Map([[secret, "a"]])),
      "content-type": "application/json",
    },
    requestBody: `{"content":"it's $HOME \`x\`"}`,
    status: 400,
    responseHeaders: {},
    responseBody: "",
    json: undefined,
    startedAt: new Date().toISOString(),
    durationMs: 1,
  };

  it("never print the token, and replay through $CAP_TOKEN_<AGENT> with the body intact", () => {
    const curl = curlFor(x);
    expect(curl).not.toContain(secret);
    expect(curl).toContain(`\${CAP_TOKEN_A}`);
    const argv = execFileSync("sh", ["-c", curl.replace(/^curl /, "printf '%s\\n' ")], {
      env: { CAP_TOKEN_A: "t0k3n", HOME: "/nowhere" },
      encoding: "utf8",
    }).split("\n");
    expect(argv).toContain("authorization: Bearer t0k3n");
    expect(argv).toContain(`{"content":"it's $HOME \`x\`"}`);
  });
});

describe("reports", () => {
  const judged = judge(
    [
      result(
        "events.a",
        "failed",
        ["CAP-EVT-1"],
        [{ ...failure("CAP-EVT-1"), message: "<script>alert(1)</script> & \u0001" }],
      ),
    ],
    manifest,
    undefined,
    false,
  );
  const report: RunReport = {
    reportVersion: 1,
    tool: { name: "cap-conformance", version: "1.0.0" },
    runId: "r1",
    startedAt: new Date().toISOString(),
    finishedAt: new Date().toISOString(),
    durationMs: 5,
    target: {
      urls: ["http://k"],
      info: null,
      features: [],
      claimed: [],
      leaseSeconds: 1,
      maxAttempts: 3,
      timeScale: 1,
      trigger: "protocol",
    },
    settings: { only: [], skip: [], level: "should", strict: false, trace: false },
    ...judged,
    canary: { hits: [] },
    notes: [],
  };

  it("escape kernel-controlled text in HTML and load nothing from outside", () => {
    const html = renderHtml(report);
    expect(html).not.toContain("<script>");
    expect(html).toContain("&lt;script&gt;");
    expect(html).not.toMatch(/(src|href)=/);
  });

  it("write JUnit XML with one failure per failing requirement and no control characters", () => {
    const xml = renderJunit(report);
    expect(xml).toContain('<failure type="CAP-EVT-1"');
    expect(xml).not.toContain("\u0001");
    expect(xml).toContain("&lt;script&gt;");
  });

  it("put every kernel requirement in the Markdown support table", () => {
    const md = renderMarkdown(report);
    expect(md).toContain("| CAP-EVT-1 | MUST |  | ❌ failed | `events.a` |");
    expect(md).toContain("| CAP-AUTH-3 | MUST |  | · not black-box testable |  |");
    expect(md).not.toContain("CAP-DRV-1");
  });
});
