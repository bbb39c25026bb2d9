/**
 * The HTML shell of every page: header, navigation, content, on-page table of contents.
 * Every URL it writes is relative to the page, so the site works at `/`, at the kernel's `/docs/`, or from
 * a file system. No inline scripts (pages that need JS load a local file), no external URL of any kind.
 * The search box, theme toggle and menu button are `hidden` until assets/site.js wires them, so a reader
 * without JavaScript never sees a control that does nothing.
 */
import { relativeHref } from "./markdown.mjs";

export function escapeHtml(s) {
  return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/**
 * @param {{href: string, title: string, body: string, nav: {section: string, items: {href: string, title: string}[]}[],
 *   headings?: {depth: number, text: string, id: string}[], head?: string, scripts?: string[], wide?: boolean}} page
 */
export function renderPage(page) {
  const to = (href) => relativeHref(page.href, href);
  const nav = page.nav
    .map((group) => {
      const items = group.items
        .map((item) => {
          const current = item.href === page.href ? ' aria-current="page"' : "";
          return `<li><a href="${to(item.href)}"${current}>${escapeHtml(item.title)}</a></li>`;
        })
        .join("");
      return `<div class="nav-group"><h2>${escapeHtml(group.section)}</h2><ul>${items}</ul></div>`;
    })
    .join("\n");
  const toc = (page.headings ?? []).filter((h) => h.depth === 2);
  const tocHtml =
    toc.length > 1
      ? `<aside class="toc" aria-label="On this page"><h2>On this page</h2><ul>${toc
          .map((h) => `<li><a href="#${h.id}">${escapeHtml(h.text)}</a></li>`)
          .join("")}</ul></aside>`
      : "";
  const scripts = (page.scripts ?? []).map((s) => `<script src="${to(s)}" defer></script>`).join("\n");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)} · CAP v1</title>
<link rel="icon" href="${to("assets/favicon.svg")}" type="image/svg+xml">
<link rel="stylesheet" href="${to("assets/site.css")}">
<link rel="stylesheet" href="${to("assets/highlight.css")}">
<script src="${to("assets/theme.js")}"></script>
${page.head ?? ""}
</head>
<body class="${page.wide ? "wide" : ""}">
<header class="top">
  <a class="brand" href="${to("index.html")}"><span class="logo" aria-hidden="true">⇅</span> CAP v1</a>
  <span class="tagline">Commonly Agent Protocol</span>
  <nav class="top-links" aria-label="Shortcuts">
    <a href="${to("cap.html")}">Spec</a>
    <a href="${to("api/cap.html")}">API</a>
    <a href="${to("requirements.html")}">Requirements</a>
  </nav>
  <div class="search" role="search" hidden>
    <input type="search" id="site-search" placeholder="Search docs" aria-label="Search the docs" autocomplete="off" aria-controls="search-results" aria-expanded="false">
    <div id="search-results" class="search-results" role="listbox" aria-label="Search results" hidden></div>
  </div>
  <button type="button" class="theme-toggle" aria-label="Dark mode" aria-pressed="false" title="Dark mode" hidden><span aria-hidden="true">◐</span></button>
  <button type="button" class="nav-toggle" aria-expanded="false" aria-controls="site-nav" hidden>Menu</button>
</header>
<div class="layout">
<nav class="side" id="site-nav" aria-label="Site">
${nav}
</nav>
<main id="content">
${page.body}
</main>
${tocHtml}
</div>
<footer>Built from the CAP v1 monorepo at build time; no network needed to read it.</footer>
<script src="${to("assets/site.js")}" defer></script>
<script src="${to("assets/search.js")}" defer></script>
${scripts}
</body>
</html>
`;
}
