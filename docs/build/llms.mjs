/**
 * `llms.txt` and `llms-full.txt` at the site root (the llmstxt.org format): the first is the title, a
 * summary and a link to every page (its Markdown source too, when it has one); the second is the text a
 * model needs to write a driver — the driver page, the full CAP.md, the operations of the OpenAPI files
 * and the error registry — each generated from its source at build time.
 *
 * Must never: hold a hand-written copy of anything normative; every section names the file it came from.
 */
import { summarize } from "./openapi.mjs";

export const TITLE = "CAP v1 — the Commonly Agent Protocol";
export const SUMMARY =
  "CAP is the pull-only HTTP contract between an agent kernel (pods, events, memory) and the drivers that " +
  "connect AI agents to it: a driver long-polls its events, acks them, posts messages into pods and keeps " +
  "memory; the kernel never connects to a driver.";

/**
 * @param {{sections: {section: string, items: {href: string, title: string, md?: string}[]}[]}} input
 *   `md` is the site-relative path of the page's Markdown source, when the site carries one.
 */
export function llmsTxt({ sections }) {
  const lines = [`# ${TITLE}`, "", `> ${SUMMARY}`, ""];
  lines.push(
    "Links are relative to this file. Every page is HTML; pages written in Markdown link their source too.",
    "The reference kernel `cap-kernel` is the mock for offline driver development: run it locally and point a driver at it.",
    "",
  );
  for (const group of sections) {
    lines.push(`## ${group.section}`, "");
    for (const item of group.items) {
      const md = item.md ? ` (Markdown: [${item.md}](${item.md}))` : "";
      lines.push(`- [${item.title}](${item.href})${md}`);
    }
    lines.push("");
  }
  lines.push(
    "## Optional",
    "",
    "- [llms-full.txt](llms-full.txt): the driver page, the full specification, every operation and every error code in one file",
    "",
  );
  return lines.join("\n");
}

/** One `## Operations` block per OpenAPI document: `METHOD path — summary`. */
export function operationsText(apis) {
  return apis
    .map(({ title, file, doc }) => {
      const ops = summarize(doc).map((o) => `- \`${o.method} ${o.path}\` — ${o.summary || "(no summary)"}`);
      const base = doc.servers?.[0]?.url ? ` Server URL in the document: \`${doc.servers[0].url}\`.` : "";
      return `## Operations: ${title}\n\nGenerated from \`${file}\` (OpenAPI ${doc.openapi}, version ${doc.info?.version ?? "?"}).${base}\n\n${ops.join("\n")}\n`;
    })
    .join("\n");
}

/** The error registry as a list: `CODE (status, surface): message — when`. */
export function errorsText(errors, file) {
  const rows = errors.map(
    (e) =>
      `- \`${e.code}\` (${e.status}, ${e.surface}): ${e.message}${e.description ? ` — ${e.description}` : ""}`,
  );
  return `## Error codes\n\nGenerated from \`${file}\`. Every non-2xx answer is \`application/json\` \`{code, message, details?}\`; \`code\` is stable and never reused.\n\n${rows.join("\n")}\n`;
}

/** @param {{documents: {file: string, text: string}[], apis: {title: string, file: string, doc: any}[], errors: any[], errorsFile: string}} input */
export function llmsFullTxt({ documents, apis, errors, errorsFile }) {
  const parts = [
    `# ${TITLE} — full text`,
    "",
    `> ${SUMMARY}`,
    "",
    `This file is generated when the docs site is built, from: ${[...documents.map((d) => d.file), ...apis.map((a) => a.file), errorsFile].map((f) => `\`${f}\``).join(", ")}.`,
    "",
  ];
  for (const d of documents) {
    parts.push(`<!-- source: ${d.file} -->`, "", d.text.trim(), "");
  }
  parts.push(operationsText(apis), errorsText(errors, errorsFile));
  return `${parts
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim()}\n`;
}
