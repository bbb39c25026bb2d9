#!/usr/bin/env node
/**
 * Builds the docs site into docs/site/ (gitignored): `pnpm --filter @commonly/cap-docs build`.
 *
 * Inputs: the markdown pages under docs/ (site-map.mjs), the generated OpenAPI files and error registry of
 * @commonly/cap-spec, spec/requirements.yaml, the checks `cap-conformance list --json` prints, and
 * docs/benchmarks/results.json. Output: plain HTML/CSS/JS/SVG with relative links and every asset local.
 * Also writes site/pages.json (every page) for the browser test, assets/search-index.js for the search,
 * each Markdown page's source beside its HTML (`cap.md` beside `cap.html`), llms.txt and llms-full.txt.
 *
 * Must never: fetch from the network, or succeed when a markdown page links to a page that is not built.
 */
import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { loadResults, renderBenchmarks } from "./benchmarks.mjs";
import { highlightCss } from "./highlight-theme.mjs";
import { escapeHtml, renderPage } from "./layout.mjs";
import { llmsFullTxt, llmsTxt } from "./llms.mjs";
import { expandIncludes, renderMarkdown, splitFrontMatter } from "./markdown.mjs";
import { buildApiPage, copySwaggerAssets } from "./openapi.mjs";
import { normalizeChecks, normalizeRequirements, renderRequirementsPage } from "./requirements.mjs";
import { searchIndexScript } from "./search-index.mjs";
import { APIS, NAV, NOT_PAGES } from "./site-map.mjs";

const started = performance.now();
const require = createRequire(import.meta.url);
const docsDir = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const repoRoot = resolve(docsDir, "..");
const siteDir = resolve(process.env.CAP_DOCS_OUT ?? join(docsDir, "site"));
const warnings = [];
const warn = (msg) => {
  warnings.push(msg);
  console.warn(`docs: warning: ${msg}`);
};

rmSync(siteDir, { recursive: true, force: true });
mkdirSync(join(siteDir, "assets"), { recursive: true });

// ---- navigation: the fixed map, minus optional pages that do not exist, plus any other docs/*.md
// `ifPresent` pages (being written) are left out until their file exists, rather than shown as a stub.
const nav = NAV.map((g) => ({
  section: g.section,
  items: g.items.filter((i) => !i.ifPresent || existsSync(join(docsDir, i.src))).map((i) => ({ ...i })),
})).filter((g) => g.items.length);
const mapped = new Set(NAV.flatMap((g) => g.items.filter((i) => i.src).map((i) => i.src)));
const extra = readdirSync(docsDir)
  .filter((f) => f.endsWith(".md") && !mapped.has(f) && !NOT_PAGES.has(f))
  .sort();
if (extra.length) {
  nav.push({
    section: "More",
    items: extra.map((f) => ({
      src: f,
      href: f.replace(/\.md$/, ".html"),
      title: titleOf(join(docsDir, f)),
    })),
  });
}
const pages = nav.flatMap((g) => g.items);
const hrefBySource = new Map(pages.filter((p) => p.src).map((p) => [join(docsDir, p.src), p.href]));
const mdToHref = (abs) => hrefBySource.get(abs) ?? null;

// Repository files that pages link to (schemas, examples, READMEs) are copied under site/repo/.
const repoCopies = new Map();
function repoFile(abs) {
  const rel = relative(repoRoot, abs);
  if (rel.startsWith("..") || rel.split(sep).includes("node_modules") || !existsSync(abs)) return undefined;
  if (statSync(abs).isDirectory()) {
    warn(`a page links to the folder ${rel}/; it is shown as text`);
    return null;
  }
  const href = `repo/${rel.split(sep).join("/")}`;
  repoCopies.set(href, abs);
  return href;
}

function titleOf(file) {
  const m = /^#\s+(.+)$/m.exec(readFileSync(file, "utf8"));
  return m ? m[1].trim() : file.split("/").pop().replace(/\.md$/, "");
}

// ---- data every generated page needs
const requirements = loadRequirements();
const { checks, checksSource } = loadChecks();
const reqIds = new Set(requirements.map((r) => r.id));
const capAnchors = new Set();

function loadRequirements() {
  const file = join(repoRoot, "spec", "requirements.yaml");
  if (!existsSync(file)) {
    warn("spec/requirements.yaml does not exist yet; the requirements page is empty");
    return [];
  }
  return normalizeRequirements(parse(readFileSync(file, "utf8")));
}

function loadChecks() {
  let bin;
  try {
    bin = join(dirname(require.resolve("@commonly/cap-conformance/package.json")), "dist", "bin.js");
  } catch {
    bin = join(repoRoot, "conformance", "dist", "bin.js");
  }
  const source = "cap-conformance list --json";
  if (!existsSync(bin)) {
    warn(`${relative(repoRoot, bin)} is not built; requirements are listed without their checks`);
    return { checks: null, checksSource: `${source}: not built` };
  }
  const r = spawnSync(process.execPath, [bin, "list", "--json"], { encoding: "utf8", timeout: 60_000 });
  if (r.status !== 0) {
    warn(`${source} failed (${r.status}): ${r.stderr.trim().split("\n")[0]}`);
    return { checks: null, checksSource: `${source}: failed` };
  }
  try {
    return { checks: normalizeChecks(JSON.parse(r.stdout)), checksSource: source };
  } catch (err) {
    throw new Error(`${source} printed something that is not JSON: ${err.message}`);
  }
}

// ---- CAP.md: requirement ids become anchors (linked back to the requirements page)
function anchorRequirementIds(html) {
  if (!reqIds.size) return html;
  const pattern = new RegExp(`\\b(${[...reqIds].map((id) => id.replace(/[-]/g, "\\-")).join("|")})\\b`, "g");
  // Only in text, never inside tags, links or code blocks: split on tags and touch text parts.
  let inAnchor = 0;
  let inPre = 0;
  return html
    .split(/(<[^>]+>)/)
    .map((part) => {
      if (part.startsWith("<")) {
        if (/^<a[\s>]/.test(part)) inAnchor++;
        else if (part === "</a>") inAnchor = Math.max(0, inAnchor - 1);
        else if (/^<pre[\s>]/.test(part)) inPre++;
        else if (part === "</pre>") inPre = Math.max(0, inPre - 1);
        return part;
      }
      if (inAnchor || inPre) return part;
      return part.replace(pattern, (id) => {
        const first = !capAnchors.has(id);
        capAnchors.add(id);
        const idAttr = first ? ` id="${id}"` : "";
        return `<a class="req-id"${idAttr} href="requirements.html#req-${id}">${id}</a>`;
      });
    })
    .join("");
}

// ---- render every page
const written = [];
const bodies = [];
function write(page, body, extra = {}) {
  const html = renderPage({ href: page.href, title: extra.title ?? page.title, body, nav, ...extra });
  const out = join(siteDir, page.href);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, html);
  written.push({ href: page.href, title: extra.title ?? page.title, kind: page.gen ?? "markdown" });
  bodies.push({ href: page.href, title: extra.title ?? page.title, body });
}

// Markdown tables scroll inside their own box on narrow screens instead of widening the page.
const wrapTables = (html) =>
  html.replace(/<table>([\s\S]*?)<\/table>/g, '<div class="table-wrap"><table>$1</table></div>');

// Each Markdown page's source, includes expanded, beside its HTML (`cap.html` → `cap.md`), for llms.txt.
const markdownCopies = new Map();
function markdownSource(page) {
  const file = join(docsDir, page.src);
  if (!existsSync(file)) return null;
  const { body } = splitFrontMatter(readFileSync(file, "utf8"));
  const text = expandIncludes(body, file);
  markdownCopies.set(page.href.replace(/\.html$/, ".md"), text);
  return text;
}

function markdownBody(page, transform = (text) => text) {
  const file = join(docsDir, page.src);
  if (!existsSync(file)) {
    if (!page.optional)
      throw new Error(`docs/${page.src} is listed in build/site-map.mjs but does not exist`);
    warn(`docs/${page.src} does not exist yet; ${page.href} says so`);
    return {
      html: `<h1>${escapeHtml(page.title)}</h1><p class="notice">Not written yet: <code>docs/${escapeHtml(page.src)}</code> is missing.</p>`,
      headings: [],
      title: page.title,
    };
  }
  const { body } = splitFrontMatter(readFileSync(file, "utf8"));
  return renderMarkdown(transform(body), { file, mdToHref, repoFile, fromHref: page.href });
}

// CAP.md first, so the requirements page knows which ids have anchors in it.
const ordered = [...pages].sort((a, b) => (b.src === "CAP.md") - (a.src === "CAP.md"));
const deferred = [];
for (const page of ordered) {
  if (page.gen === "requirements" || page.gen === "benchmarks" || page.gen === "errors") {
    deferred.push(page);
    continue;
  }
  if (page.gen === "openapi") {
    const api = buildApiPage({ name: page.api, api: APIS[page.api], repoRoot, siteDir, warn });
    write(page, api.body, { head: api.head, scripts: api.scripts, wide: true });
    continue;
  }
  const md = markdownBody(page);
  const html = page.src === "CAP.md" ? anchorRequirementIds(md.html) : md.html;
  markdownSource(page);
  write(page, wrapTables(html), { headings: md.headings, title: md.title ?? page.title });
}

for (const page of deferred) {
  if (page.gen === "requirements") {
    const body = renderRequirementsPage({ requirements, checks, capAnchors, checksSource });
    write(page, body, { wide: true });
  } else if (page.gen === "errors") {
    write(page, errorsPage());
  } else if (page.gen === "benchmarks") {
    // The markdown table `pnpm bench` keeps in benchmarks.md (for readers on GitHub) is replaced on the site
    // by the charts and the table drawn from the same results file.
    const md = markdownBody(page, (text) =>
      text.replace(/<!-- bench:results:begin[\s\S]*?<!-- bench:results:end -->/, "<!-- charts -->"),
    );
    const resultsFile = join(docsDir, "benchmarks", "results.json");
    const data = loadResults(resultsFile, join(docsDir, "benchmarks", "results.schema.json"));
    const expected = parse(readFileSync(join(docsDir, "benchmarks", "expected.yaml"), "utf8"));
    const bench = renderBenchmarks({ data, expected, resultsPath: "docs/benchmarks/results.json" });
    if (!data)
      warn("docs/benchmarks/results.json does not exist yet; the benchmarks page says 'not measured yet'");
    mkdirSync(join(siteDir, "benchmarks"), { recursive: true });
    for (const [file, svg] of bench.charts) writeFileSync(join(siteDir, "benchmarks", file), svg);
    if (data) cpSync(resultsFile, join(siteDir, "benchmarks", "results.json"));
    const html = md.html.includes("<!-- charts -->")
      ? md.html.replace("<!-- charts -->", bench.html)
      : md.html + bench.html;
    markdownSource(page);
    write(page, wrapTables(html), { headings: md.headings, title: md.title ?? page.title });
  }
}

function errorsPage() {
  const file = join(dirname(require.resolve("@commonly/cap-spec/package.json")), "generated", "errors.json");
  const { errors } = JSON.parse(readFileSync(file, "utf8"));
  const table = (surface) =>
    `<div class="table-wrap"><table><thead><tr><th>Code</th><th>Status</th><th>Message</th><th>When</th></tr></thead><tbody>${errors
      .filter((e) => e.surface === surface)
      .map(
        (e) =>
          `<tr id="${escapeHtml(e.code)}"><td><code>${escapeHtml(e.code)}</code></td><td>${e.status}</td><td>${escapeHtml(e.message)}</td><td>${renderInline(e.description ?? "")}</td></tr>`,
      )
      .join("")}</tbody></table></div>`;
  return `<h1 id="error-codes">Error codes</h1>
<p>Every non-2xx response of a CAP kernel is <code>application/json</code> <code>{code, message, details?}</code>. <code>code</code> is stable and never reused; <code>message</code> is for people. Generated from <code>spec/errors.yaml</code>.</p>
<h2 id="cap">CAP v1</h2>${table("cap")}
<h2 id="admin">Reference kernel admin surface</h2>${table("admin")}`;
}

function writeLlmsFiles() {
  const sections = nav.map((g) => ({
    section: g.section,
    items: g.items.map((i) => {
      const md = i.href.replace(/\.html$/, ".md");
      return { href: i.href, title: i.title, ...(markdownCopies.has(md) ? { md } : {}) };
    }),
  }));
  writeFileSync(join(siteDir, "llms.txt"), llmsTxt({ sections }));
  const documents = ["drivers.md", "CAP.md"]
    .filter((f) => existsSync(join(docsDir, f)))
    .map((f) => {
      const file = join(docsDir, f);
      return {
        file: `docs/${f}`,
        text: expandIncludes(splitFrontMatter(readFileSync(file, "utf8")).body, file),
      };
    });
  const apis = Object.values(APIS)
    .filter((a) => existsSync(join(repoRoot, a.file)))
    .map((a) => ({ title: a.title, file: a.file, doc: parse(readFileSync(join(repoRoot, a.file), "utf8")) }));
  const errorsFile = join(
    dirname(require.resolve("@commonly/cap-spec/package.json")),
    "generated",
    "errors.json",
  );
  const { errors } = JSON.parse(readFileSync(errorsFile, "utf8"));
  writeFileSync(
    join(siteDir, "llms-full.txt"),
    llmsFullTxt({ documents, apis, errors, errorsFile: "spec/errors.yaml (spec/generated/errors.json)" }),
  );
}

function renderInline(text) {
  return escapeHtml(text).replace(/`([^`]+)`/g, "<code>$1</code>");
}

// ---- static assets
const assets = join(docsDir, "build", "assets");
for (const f of readdirSync(assets)) cpSync(join(assets, f), join(siteDir, "assets", f));
const hlStyles = join(dirname(require.resolve("highlight.js/package.json")), "styles");
writeFileSync(
  join(siteDir, "assets", "highlight.css"),
  highlightCss(
    readFileSync(join(hlStyles, "github.css"), "utf8"),
    readFileSync(join(hlStyles, "github-dark.css"), "utf8"),
  ),
);
writeFileSync(join(siteDir, "assets", "search-index.js"), searchIndexScript(bodies));
for (const [href, text] of markdownCopies) writeFileSync(join(siteDir, href), text);
writeLlmsFiles();
const swaggerVersion = copySwaggerAssets(siteDir);
for (const [href, abs] of repoCopies) {
  mkdirSync(dirname(join(siteDir, href)), { recursive: true });
  cpSync(abs, join(siteDir, href));
}

writeFileSync(
  join(siteDir, "pages.json"),
  `${JSON.stringify({ generatedAt: new Date().toISOString(), pages: written, warnings }, null, 2)}\n`,
);

const ms = Math.round(performance.now() - started);
console.log(
  `docs: built ${written.length} pages into ${relative(process.cwd(), siteDir) || "."} in ${ms} ms (Swagger UI ${swaggerVersion}${warnings.length ? `, ${warnings.length} warning(s)` : ""})`,
);
