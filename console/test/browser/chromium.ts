/** Debian's Chromium, headless, through playwright-core (no browser download): one launch for every page test. */
import { chromium } from "playwright-core";

const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

export function launchChromium() {
  const executablePath = process.env.CAP_TEST_CHROMIUM || "/usr/bin/chromium";
  return chromium.launch({ executablePath, args: FLAGS, headless: true });
}
