/** Write the requested report files (`--report FORMAT=PATH`). JSON is the stable, versioned format. */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { ReportTarget } from "../config/settings.js";
import type { RunReport } from "../runner/results.js";
import { renderHtml } from "./html.js";
import { renderJunit } from "./junit.js";
import { renderMarkdown } from "./markdown.js";

export const renderJson = (report: RunReport) => `${JSON.stringify(report, null, 2)}\n`;

const renderers = {
  json: renderJson,
  junit: renderJunit,
  markdown: renderMarkdown,
  html: renderHtml,
} as const;

export async function writeReports(report: RunReport, targets: readonly ReportTarget[]): Promise<void> {
  for (const t of targets) {
    await mkdir(dirname(t.path), { recursive: true });
    await writeFile(t.path, renderers[t.format](report));
  }
}
