/**
 * `cap-conformance list`: every check with its family, level, feature gate and the requirement ids it
 * verifies — the kernel checks of `run`, then the driver checks of `driver`.
 */
import type { Check } from "./check.js";
import type { DriverCheck } from "./driver/check.js";
import { type Manifest, strongest } from "./requirements.js";

type Listed = Pick<Check, "id" | "title" | "verifies" | "feature"> & { family: string };

function rows(checks: readonly Listed[], manifest: Manifest, suite: "kernel" | "driver") {
  return checks.map((c) => ({
    id: c.id,
    suite,
    family: c.family,
    level: strongest(c.verifies.map((id) => manifest.byId.get(id)).filter((r) => r !== undefined)),
    feature: c.feature ?? null,
    verifies: [...c.verifies],
    title: c.title,
  }));
}

export function renderList(
  checks: readonly Check[],
  driver: readonly DriverCheck[],
  manifest: Manifest,
  json: boolean,
): string {
  const kernel = rows(checks, manifest, "kernel");
  const drivers = rows(driver, manifest, "driver");
  if (json) return `${JSON.stringify([...kernel, ...drivers], null, 2)}\n`;
  const width = Math.max(...[...kernel, ...drivers].map((r) => r.id.length));
  const render = (list: typeof kernel) =>
    list
      .map(
        (r) =>
          `${r.id.padEnd(width)}  ${r.level.padEnd(6)}  ${(r.feature ?? "").padEnd(15)}  ${r.verifies.join(" ")}\n${" ".repeat(width + 2)}${r.title}`,
      )
      .join("\n");
  return `${render(kernel)}\n\n${kernel.length} checks\n\nDriver checks (cap-conformance driver):\n\n${render(drivers)}\n\n${drivers.length} driver checks\n`;
}
