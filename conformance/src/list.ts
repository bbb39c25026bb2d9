/** `cap-conformance list`: every check with its family, level, feature gate and the requirement ids it verifies. */
import type { Check } from "./check.js";
import { type Manifest, strongest } from "./requirements.js";

export function renderList(checks: readonly Check[], manifest: Manifest, json: boolean): string {
  const rows = checks.map((c) => ({
    id: c.id,
    family: c.family,
    level: strongest(c.verifies.map((id) => manifest.byId.get(id)).filter((r) => r !== undefined)),
    feature: c.feature ?? null,
    verifies: [...c.verifies],
    title: c.title,
  }));
  if (json) return `${JSON.stringify(rows, null, 2)}\n`;
  const width = Math.max(...rows.map((r) => r.id.length));
  const lines = rows.map(
    (r) =>
      `${r.id.padEnd(width)}  ${r.level.padEnd(6)}  ${(r.feature ?? "").padEnd(15)}  ${r.verifies.join(" ")}\n${" ".repeat(width + 2)}${r.title}`,
  );
  return `${lines.join("\n")}\n\n${rows.length} checks\n`;
}
