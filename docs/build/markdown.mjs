/**
 * Markdown → HTML for the docs site, with `marked` and build-time syntax highlighting (highlight.js).
 *
 * What it adds on top of plain marked: stable heading ids (GitHub-style slugs, so `CAP.md#events` keeps
 * working), links between `.md` sources rewritten to the built `.html` pages (relative, so the site works
 * under any prefix, e.g. the kernel's `/docs/`), `<!-- include: path -->` regions that hold a real, CI-tested
 * file as a code block (written by includes.mjs for GitHub, checked here against the file), images from the
 * docs' own assets (docs/build/assets/, which the site serves as assets/), and a list of the page's headings
 * for the table of contents.
 *
 * Must never: fetch anything, or leave a link pointing at a `.md` file that was not built.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, extname, isAbsolute, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import hljs from "highlight.js";
import { Marked } from "marked";

/** GitHub-style heading slug: lower case, punctuation dropped, spaces → dashes. */
export function slugify(text) {
  return text
    .toLowerCase()
    .replace(/<[^>]+>/g, "")
    .replace(/&[a-z]+;|&#\d+;/g, "")
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .trim()
    .replace(/\s/g, "-");
}

const LANG_BY_EXT = { ".ts": "typescript", ".mjs": "javascript", ".js": "javascript", ".py": "python" };
Object.assign(LANG_BY_EXT, { ".sh": "bash", ".yaml": "yaml", ".yml": "yaml", ".json": "json" });

/** The fenced block an include expands to: the file's text, in a fence longer than any inside it. */
export function includeBlock(path) {
  const text = readFileSync(path, "utf8");
  const lang = LANG_BY_EXT[extname(path)] ?? "";
  const fence = text.includes("```") ? "````" : "```";
  return `${fence}${lang}\n${text.replace(/\n$/, "")}\n${fence}`;
}

const INCLUDE = /^<!--\s*include:\s*(\S+)\s*-->[ \t]*\n(?:([\s\S]*?)^<!--\s*\/include\s*-->[ \t]*$)?/gm;

/**
 * Writes each `<!-- include: path -->` region as the directive, the file's current text as a fenced block,
 * and `<!-- /include -->` (path relative to the .md file), so GitHub shows the code too. With `check`, a
 * region whose block differs from its file throws instead: the site never shows stale code.
 */
export function expandIncludes(source, fromFile, { check = false } = {}) {
  return source.replace(INCLUDE, (whole, rel, current) => {
    const path = resolve(dirname(fromFile), rel);
    if (!existsSync(path)) throw new Error(`${fromFile}: include of ${rel} failed: ${path} does not exist`);
    const region = `<!-- include: ${rel} -->\n${includeBlock(path)}\n<!-- /include -->`;
    if (check && (current === undefined || whole.trimEnd() !== region))
      throw new Error(
        `${fromFile}: the included copy of ${rel} differs from the file; run \`npx -y pnpm@12.4.2 --filter @commonly/cap-docs generate\``,
      );
    return region;
  });
}

/** Splits `---\nyaml\n---` front matter off (returned raw; the caller parses it if it needs to). */
export function splitFrontMatter(source) {
  const m = /^---\n([\s\S]*?)\n---\n?/.exec(source);
  if (!m) return { frontMatter: null, body: source };
  return { frontMatter: m[1], body: source.slice(m[0].length) };
}

function escapeHtml(s) {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/**
 * Renders one markdown document.
 * @param {string} source markdown text
 * @param {{file: string, mdToHref: (absMdPath: string) => string | null, fromHref: string,
 *   repoFile?: (absPath: string) => string | null | undefined}} ctx
 *   `file` is the source's absolute path; `mdToHref` maps a source .md to its site-relative .html (or null
 *   when that file is not part of the site); `fromHref` is this page's site-relative path; `repoFile` maps a
 *   repository file to the site-relative path of its copy (null: a folder, not linked; undefined: missing).
 * @returns {{html: string, title: string | null, headings: {depth: number, text: string, id: string}[]}}
 */
export function renderMarkdown(source, ctx) {
  const headings = [];
  const seen = new Map();
  const marked = new Marked({ gfm: true });
  marked.use({
    renderer: {
      heading({ tokens, depth, text }) {
        const inner = this.parser.parseInline(tokens);
        let id = slugify(text);
        const n = seen.get(id) ?? 0;
        seen.set(id, n + 1);
        if (n > 0) id = `${id}-${n}`;
        headings.push({ depth, text: inner.replace(/<[^>]+>/g, ""), id });
        return `<h${depth} id="${id}"><a class="anchor" href="#${id}" aria-hidden="true">#</a>${inner}</h${depth}>\n`;
      },
      code({ text, lang }) {
        const language = (lang ?? "").split(/\s/)[0];
        const known = language && hljs.getLanguage(language);
        const body = known ? hljs.highlight(text, { language }).value : escapeHtml(text);
        const cls = known ? ` class="hljs language-${language}"` : ' class="hljs"';
        return `<pre><code${cls}>${body}</code></pre>\n`;
      },
      // Raw HTML (the home page's cards) links to .md sources too, for GitHub; the site gets the pages.
      html({ text }) {
        return text.replace(
          /href="([^"]+\.md(?:#[^"]*)?)"/g,
          (_m, href) => `href="${escapeHtml(rewriteHref(href, ctx) ?? href)}"`,
        );
      },
      image({ href, title, text }) {
        const src = imageSrc(href, ctx);
        const t = title ? ` title="${escapeHtml(title)}"` : "";
        return `<img src="${escapeHtml(src)}" alt="${escapeHtml(text)}"${t}>`;
      },
      link({ href, title, tokens }) {
        const inner = this.parser.parseInline(tokens);
        const target = rewriteHref(href, ctx);
        if (target === null) return `<span class="repo-path">${inner}</span>`;
        const t = title ? ` title="${escapeHtml(title)}"` : "";
        const ext = /^[a-z]+:/i.test(target) ? ' rel="noopener"' : "";
        return `<a href="${escapeHtml(target)}"${t}${ext}>${inner}</a>`;
      },
    },
  });
  const html = marked.parse(expandIncludes(source, ctx.file, { check: true }), { async: false });
  const h1 = headings.find((h) => h.depth === 1);
  return { html, title: h1 ? h1.text : null, headings };
}

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

// Pages the site generates from a repository file: a source links to the file (which GitHub shows), the
// site to the page built from it.
const GENERATED_PAGES = {
  "spec/requirements.yaml": "requirements.html",
  "spec/errors.yaml": "errors.html",
  "spec/generated/cap-v1.openapi.yaml": "api/cap.html",
  "spec/generated/kernel-admin.openapi.yaml": "api/admin.html",
};

/**
 * Maps a link written in a .md file to the built site: another page's .md → its .html (fragment kept); any
 * other file of the repository (a JSON Schema, an example, a README) → a copy of it under `repo/`, which
 * `ctx.repoFile` records for the build to write, so the site stays self-contained; a folder → no link (the
 * caller renders the text). A link to something that does not exist fails the build.
 */
export function rewriteHref(href, ctx) {
  if (/^([a-z]+:|#)/i.test(href)) return href;
  const [path, fragment] = href.split("#");
  const abs = resolve(dirname(ctx.file), decodeURIComponent(path));
  const generated = GENERATED_PAGES[relative(REPO, abs).split("\\").join("/")];
  if (generated) {
    const rel = relativeHref(ctx.fromHref, generated);
    return fragment ? `${rel}#${fragment}` : rel;
  }
  const page = path.endsWith(".md") ? ctx.mdToHref(abs) : null;
  if (page) {
    const rel = relativeHref(ctx.fromHref, page);
    return fragment ? `${rel}#${fragment}` : rel;
  }
  // Links to built pages written directly as .html (e.g. api/cap.html) are left alone.
  if (path.endsWith(".html")) return href;
  const copied = ctx.repoFile ? ctx.repoFile(abs) : undefined;
  if (copied === undefined) throw new Error(`${ctx.file}: link to ${href}, which does not exist`);
  if (copied === null) return null;
  const rel = relativeHref(ctx.fromHref, copied);
  return fragment ? `${rel}#${fragment}` : rel;
}

const ASSETS = resolve(REPO, "docs", "build", "assets");

/**
 * Maps an image written in a .md file to the built site: one under docs/build/assets/ (the folder GitHub
 * shows it from) to the site's assets/ copy of that folder; any other repository file as a link's copy.
 * An image that does not exist fails the build.
 */
export function imageSrc(href, ctx) {
  if (/^[a-z]+:/i.test(href)) return href;
  const abs = resolve(dirname(ctx.file), decodeURIComponent(href));
  const inAssets = relative(ASSETS, abs);
  if (inAssets.startsWith("..") || isAbsolute(inAssets)) return rewriteHref(href, ctx);
  if (!existsSync(abs)) throw new Error(`${ctx.file}: image ${href}, which does not exist`);
  return relativeHref(ctx.fromHref, `assets/${inAssets.split(sep).join("/")}`);
}

/** The relative href from one site page to another (both site-relative, "/"-separated). */
export function relativeHref(fromHref, toHref) {
  const rel = relative(dirname(`/${fromHref}`), `/${toHref}`);
  return rel === "" ? toHref.split("/").pop() : rel;
}
