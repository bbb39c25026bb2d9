/**
 * Launches Debian's Chromium headless through playwright-core (no browser download: `executablePath`).
 * CI installs the `chromium` package and exports CAP_TEST_CHROMIUM; locally /usr/bin/chromium is used.
 */
import { existsSync } from "node:fs";
import { chromium } from "playwright-core";

export const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

export function chromiumPath() {
  const path = process.env.CAP_TEST_CHROMIUM || "/usr/bin/chromium";
  if (!existsSync(path)) {
    throw new Error(
      `Chromium not found at ${path}. Install Debian's package (apt-get install -y chromium) or set CAP_TEST_CHROMIUM.`,
    );
  }
  return path;
}

export function launchChromium() {
  return chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_FLAGS, headless: true });
}
