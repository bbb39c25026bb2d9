import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { barChartSvg, chartsOf, loadResults, meetsGoal, renderBenchmarks } from "../build/benchmarks.mjs";
import { expandIncludes, relativeHref, renderMarkdown, slugify } from "../build/markdown.mjs";
import { normalizeChecks, normalizeRequirements, renderRequirementsPage } from "../build/requirements.mjs";

const docsDir = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const schema = join(docsDir, "benchmarks", "results.schema.json");
const tmp = mkdtempSync(join(tmpdir(), "cap-docs-test-"));

const sample = {
  schemaVersion: 1,
  generatedAt: "2026-11-29T20:00:00.000Z",
  command: "pnpm bench",
  machine: { cpus: 2, node: "v20.20.2" },
  results: [
    {
      id: "drain-sqlite-events",
      group: "Throughput, drain",
      name: "SQLite, events acked/s",
      unit: "events/s",
      value: 12345,
      baseline: { name: "Fastify hello-world POST", value: 41000, unit: "req/s" },
      ratio: 0.301,
      goal: { of: "ratio", op: ">=", target: 0.25 },
    },
    {
      id: "wake-sqlite-idle-p99",
      group: "Long-poll wake latency",
      name: "SQLite, idle, p99",
      unit: "ms",
      value: 14.2,
      better: "lower",
      goal: { of: "value", op: "<=", target: 10 },
    },
  ],
  skipped: [{ ids: ["drain-postgres-events"], reason: "no PostgreSQL server" }],
};

function writeJson(name, value) {
  const file = join(tmp, name);
  writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value));
  return file;
}

describe("benchmark results", () => {
  it("loads a file that matches the schema and returns null when there is none", () => {
    expect(loadResults(writeJson("ok.json", sample), schema)?.results).toHaveLength(2);
    expect(loadResults(join(tmp, "absent.json"), schema)).toBeNull();
  });

  it.each([
    ["not JSON", "{", /not valid JSON/],
    [
      "a result without a value",
      { ...sample, results: [{ ...sample.results[0], value: undefined }] },
      /value/,
    ],
    ["a bad id", { ...sample, results: [{ ...sample.results[0], id: "Bad Id" }] }, /pattern/],
    ["a duplicate id", { ...sample, results: [sample.results[0], sample.results[0]] }, /appears twice/],
  ])("fails the build on %s", (_name, content, message) => {
    expect(() => loadResults(writeJson("bad.json", content), schema)).toThrow(message);
  });

  it("judges goals on the ratio or the value, as the goal says", () => {
    expect(meetsGoal(sample.results[0])).toBe(true);
    expect(meetsGoal(sample.results[1])).toBe(false);
    expect(meetsGoal({ ...sample.results[1], goal: undefined })).toBeNull();
  });

  it("draws one chart per group with bars and labels taken from the results only", () => {
    const charts = chartsOf(sample.results);
    expect(charts.map((c) => [c.group, c.unit])).toEqual([
      ["Throughput, drain", "× Fastify hello-world POST"],
      ["Long-poll wake latency", "ms"],
    ]);
    const svg = barChartSvg({ title: charts[1].group, unit: charts[1].unit, rows: charts[1].rows });
    expect(svg).toContain("<svg");
    expect(svg).toContain(">14.2<");
    expect(svg).toContain('class="bar fail"');
    expect(svg).toContain('class="goal"');
    expect(barChartSvg({ title: "t", unit: "u", rows: charts[1].rows })).toBe(
      svg.replace(/Long-poll wake latency/g, "t").replace(/\(ms\)/g, "(u)"),
    );
  });

  it("lists every expected benchmark, measured or not, with the reason a run skipped it", () => {
    const expected = [
      { id: "drain-sqlite-events", group: "Throughput, drain", name: "SQLite", unit: "events/s" },
      { id: "drain-postgres-events", group: "Throughput, drain", name: "PostgreSQL", unit: "events/s" },
    ];
    const page = renderBenchmarks({ data: sample, expected, resultsPath: "results.json" });
    expect(page.measured).toBe(2);
    expect(page.missing).toBe(1);
    expect(page.html).toContain("not measured yet</em> — skipped in the last run: no PostgreSQL server");
    expect(page.charts).toHaveLength(2);
    const none = renderBenchmarks({ data: null, expected, resultsPath: "results.json" });
    expect(none.charts).toEqual([]);
    expect(none.html.match(/not measured yet/gi)).toHaveLength(3);
  });

  it("says a run is INVALID at the top and judges none of its figures", () => {
    const invalid = {
      ...sample,
      valid: false,
      invalidReason: "baseline server under 0.8 core in 1 of 2 measurements (0.52 core)",
      results: [{ ...sample.results[0], ratio: undefined, goal: undefined }],
    };
    const file = writeJson("invalid.json", invalid);
    expect(loadResults(file, schema)?.valid).toBe(false);
    const page = renderBenchmarks({ data: invalid, expected: [], resultsPath: "results.json" });
    expect(page.html).toContain("INVALID run — no ratios.</strong> baseline server under 0.8 core");
    expect(page.html).not.toMatch(/class="(pass|fail)"/);
  });
});

describe("markdown", () => {
  const ctx = {
    file: join(docsDir, "quickstart", "x.md"),
    fromHref: "quickstart/x.html",
    mdToHref: (abs) => (abs === join(docsDir, "CAP.md") ? "cap.html" : null),
  };

  it.each([
    ["Delivery and leases", "delivery-and-leases"],
    ["`GET /events`", "get-events"],
    ["ADR-004 open questions, answered", "adr-004-open-questions-answered"],
  ])("slugs %j as %j", (text, want) => {
    expect(slugify(text)).toBe(want);
  });

  it("rewrites links between pages to relative .html links and keeps fragments", () => {
    const { html } = renderMarkdown("[spec](../CAP.md#events) and [site](https://example.org)", ctx);
    expect(html).toContain('href="../cap.html#events"');
    expect(html).toContain('href="https://example.org" rel="noopener"');
  });

  it("fails on a link to a file that does not exist", () => {
    expect(() => renderMarkdown("[x](nowhere.md)", { ...ctx, repoFile: () => undefined })).toThrow(
      /does not exist/,
    );
  });

  it("links a repository file to its copy in the site, and a folder to nothing", () => {
    const repoFile = (abs) => (abs.endsWith("schema.json") ? "repo/x/schema.json" : null);
    const { html } = renderMarkdown("[s](../../x/schema.json#/a) and [dir](../../examples/)", {
      ...ctx,
      repoFile,
    });
    expect(html).toContain('href="../repo/x/schema.json#/a"');
    expect(html).toContain('<span class="repo-path">dir</span>');
  });

  it("shows an image of the docs' assets from the site's assets/, and fails on one that does not exist", () => {
    const { html } = renderMarkdown('![the site icon](../build/assets/favicon.svg "icon")', ctx);
    expect(html).toContain('<img src="../assets/favicon.svg" alt="the site icon" title="icon">');
    expect(() => renderMarkdown("![x](../build/assets/nowhere.png)", ctx)).toThrow(/does not exist/);
  });

  it("gives headings ids, numbering duplicates, and highlights known languages", () => {
    const { html, headings } = renderMarkdown("# T\n## A\n## A\n```ts\nconst a = 1;\n```", ctx);
    expect(headings.map((h) => h.id)).toEqual(["t", "a", "a-1"]);
    expect(html).toContain('class="hljs language-ts"');
    expect(html).toContain('<span class="hljs-keyword">const</span>');
  });

  it("writes an included file into its region once, and fails when the file is missing", () => {
    const region = expandIncludes("<!-- include: ../benchmarks/expected.yaml -->\n", ctx.file);
    expect(region).toMatch(
      /^<!-- include: \.\.\/benchmarks\/expected\.yaml -->\n```yaml\n[\s\S]*\n```\n<!-- \/include -->/,
    );
    expect(expandIncludes(region, ctx.file)).toBe(region);
    const { html } = renderMarkdown(region, ctx);
    expect(html.match(/<pre>/g)).toHaveLength(1);
    expect(html).toContain("language-yaml");
    expect(() => expandIncludes("<!-- include: ../missing.py -->\n", ctx.file)).toThrow(/does not exist/);
  });

  it.each([
    [
      "a region whose copy differs from the file",
      "<!-- include: ../benchmarks/expected.yaml -->\n```yaml\nold\n```\n<!-- /include -->",
    ],
    ["a directive never generated", "<!-- include: ../benchmarks/expected.yaml -->\n"],
  ])("fails the site build on %s", (_name, md) => {
    expect(() => renderMarkdown(md, ctx)).toThrow(/differs from the file; run/);
  });

  it.each([
    ["../../spec/requirements.yaml", "../requirements.html"],
    ["../../spec/errors.yaml#auth", "../errors.html#auth"],
    ["../../spec/generated/cap-v1.openapi.yaml", "../api/cap.html"],
    ["../../spec/generated/kernel-admin.openapi.yaml", "../api/admin.html"],
  ])("links %s, the source of a generated page, to that page (%s)", (href, want) => {
    expect(renderMarkdown(`[x](${href})`, ctx).html).toContain(`href="${want}"`);
  });

  it("rewrites .md links in raw HTML to the built pages", () => {
    const { html } = renderMarkdown(
      '<div class="cards"><a class="card" href="../CAP.md#events">x</a></div>',
      ctx,
    );
    expect(html).toContain('href="../cap.html#events"');
  });

  it.each([
    ["index.html", "cap.html", "cap.html"],
    ["quickstart/a.html", "cap.html", "../cap.html"],
    ["api/cap.html", "api/admin.html", "admin.html"],
    ["cap.html", "cap.html", "cap.html"],
  ])("links from %s to %s as %s", (from, to, want) => {
    expect(relativeHref(from, to)).toBe(want);
  });
});

describe("requirements page", () => {
  const requirements = normalizeRequirements({
    requirements: [
      { id: "CAP-A-1", level: "MUST", text: "A thing.", section: "S", testable: true, feature: null },
      { id: "CAP-A-2", level: "SHOULD", text: "Another.", section: "S", testable: false, feature: "renew" },
    ],
  });

  it("links each requirement to its checks and back, and reports ids the manifest lacks", () => {
    const checks = normalizeChecks([
      { id: "events.shape", title: "Shape", level: "MUST", verifies: ["CAP-A-1", "CAP-Z-9"] },
    ]);
    const html = renderRequirementsPage({
      requirements,
      checks,
      capAnchors: new Set(["CAP-A-1"]),
      checksSource: "list",
    });
    expect(html).toContain('<tr id="req-CAP-A-1">');
    expect(html).toContain('href="#check-events-shape"');
    expect(html).toContain('href="#req-CAP-A-1"');
    expect(html).toContain('href="cap.html#CAP-A-1"');
    expect(html).toContain("not black-box testable");
    expect(html).toContain("<code>events.shape</code> → <code>CAP-Z-9</code>");
  });

  it("says so when the checks could not be listed", () => {
    const html = renderRequirementsPage({
      requirements,
      checks: null,
      capAnchors: new Set(),
      checksSource: "x: not built",
    });
    expect(html).toContain("could not be listed at build time");
  });
});
