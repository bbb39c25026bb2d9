/**
 * Relative links in markdown, as GitHub follows them: `[text](path#fragment)` and raw `href="…"`, outside
 * code. Used by the link test so a page that only exists on the built site is never linked from a source.
 *
 * Must never: follow a link to the network.
 */
import { slugify } from "../../docs/build/markdown.mjs";

/** Lines of a markdown text with fenced code blanked out (line numbers kept) and inline code removed. */
function prose(text) {
  let fence = null;
  return text.split("\n").map((line) => {
    const m = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (m && m[1][0] === fence[0] && m[1].length >= fence.length) fence = null;
      return "";
    }
    if (m) {
      fence = m[1];
      return "";
    }
    return line.replace(/`+[^`]*`+/g, "");
  });
}

/** Every relative link of a markdown text: `{href, line}`. */
export function relativeLinks(text) {
  const links = [];
  for (const [i, line] of prose(text).entries()) {
    for (const m of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)|href="([^"]+)"/g)) {
      const href = m[1] ?? m[2];
      if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith("//")) continue;
      links.push({ href, line: i + 1 });
    }
  }
  return links;
}

/** The anchors GitHub gives a markdown text's headings (duplicates get -1, -2, …). */
export function anchors(text) {
  const seen = new Map();
  const out = new Set();
  for (const line of prose(text)) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = slugify(m[1].replace(/\[([^\]]*)\]\([^)]*\)/g, "$1"));
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}
