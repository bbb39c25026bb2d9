/**
 * The interactive API reference pages: Swagger UI (swagger-ui-dist, copied into the site) over the generated
 * OpenAPI 3.1 files, converted to JSON at build time so the browser needs no YAML parser and no network.
 *
 * Must never: reference a CDN, or let Swagger UI call its online validator (validatorUrl is null).
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { parse } from "yaml";
import { escapeHtml } from "./layout.mjs";

const require = createRequire(import.meta.url);

/** Copies the two Swagger UI files the pages load into `<site>/assets/swagger-ui/`. */
export function copySwaggerAssets(siteDir) {
  const dist = dirname(require.resolve("swagger-ui-dist/package.json"));
  const to = join(siteDir, "assets", "swagger-ui");
  mkdirSync(to, { recursive: true });
  for (const f of ["swagger-ui-bundle.js", "swagger-ui.css", "LICENSE"])
    copyFileSync(join(dist, f), join(to, f));
  const { version } = JSON.parse(readFileSync(join(dist, "package.json"), "utf8"));
  return version;
}

/** Summary of an OpenAPI document: operations by tag, for the page's static overview. */
export function summarize(doc) {
  const ops = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item)) {
      if (!["get", "put", "post", "delete", "patch"].includes(method)) continue;
      ops.push({
        method: method.toUpperCase(),
        path,
        summary: op.summary ?? "",
        tag: op.tags?.[0] ?? "other",
      });
    }
  }
  return ops;
}

/**
 * Builds one API page. Returns the page body and writes `<site>/api/<name>.openapi.json` and `.yaml`.
 * When the OpenAPI file does not exist yet, returns a body that says so (the build warns).
 */
export function buildApiPage({ name, api, repoRoot, siteDir, warn }) {
  const file = join(repoRoot, api.file);
  if (!existsSync(file)) {
    warn(`${api.file} does not exist yet; api/${name}.html says so`);
    return {
      body: `<h1>${escapeHtml(api.title)}</h1><p class="notice">Not generated yet: <code>${escapeHtml(api.file)}</code> is missing. Run <code>pnpm generate</code>.</p>`,
      scripts: [],
    };
  }
  const yamlText = readFileSync(file, "utf8");
  const doc = parse(yamlText);
  mkdirSync(join(siteDir, "api"), { recursive: true });
  writeFileSync(join(siteDir, "api", `${name}.openapi.json`), JSON.stringify(doc));
  writeFileSync(join(siteDir, "api", `${name}.openapi.yaml`), yamlText);
  const ops = summarize(doc);
  const rows = ops
    .map(
      (o) =>
        `<tr><td><span class="method m-${o.method.toLowerCase()}">${o.method}</span></td><td><code>${escapeHtml(o.path)}</code></td><td>${escapeHtml(o.summary)}</td></tr>`,
    )
    .join("");
  const body = `<h1 id="top">${escapeHtml(api.title)}</h1>
<p>${escapeHtml(api.intro)}</p>
<p class="meta">OpenAPI ${escapeHtml(doc.openapi)} · <strong>${escapeHtml(doc.info?.title ?? "")}</strong> version ${escapeHtml(doc.info?.version ?? "")} ·
download <a href="${name}.openapi.yaml">YAML</a> or <a href="${name}.openapi.json">JSON</a> · ${ops.length} operations.
Generated from <code>${escapeHtml(api.file)}</code>.</p>
<details class="ops"><summary>All operations at a glance</summary><table><thead><tr><th>Method</th><th>Path</th><th>Summary</th></tr></thead><tbody>${rows}</tbody></table></details>
<p class="hint">“Try it out” sends real requests. Served by <code>cap-kernel</code> at <code>/docs/</code>, the first server is this kernel itself; paste a token under <em>Authorize</em>.</p>
<div id="swagger-ui" data-spec="${name}.openapi.json"><p class="loading">Loading the interactive reference…</p></div>`;
  return {
    body,
    head: `<link rel="stylesheet" href="../assets/swagger-ui/swagger-ui.css">`,
    scripts: ["assets/swagger-ui/swagger-ui-bundle.js", "assets/api-reference.js"],
  };
}
