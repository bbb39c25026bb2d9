/**
 * The console header names the kernel's wire profile when it is not plain CAP: headless Chromium against a
 * real `cap-kernel --profile production`, and against the default profile, where no badge shows.
 */

import { startKernel, type TestKernel } from "@commonly/cap-kernel/testing";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "./chromium.js";

let browser: Browser;
const kernels: TestKernel[] = [];

beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  for (const k of kernels) await k.stop();
});

async function badgeOf(profile?: string) {
  const kernel = await startKernel({ agents: ["echo"], ...(profile ? { profile } : {}) });
  kernels.push(kernel);
  const page = await browser.newPage();
  await page.goto(`${kernel.url}/console/#token=${kernel.human.token}`);
  await page.waitForSelector(`#pod-select option[value="${kernel.podId}"]`, { state: "attached" });
  // The badge carries data-profile once the console has read /readyz, whatever the profile.
  await page.waitForSelector("#profile[data-profile]", { state: "attached" });
  const badge = page.locator("#profile");
  return { badge, page };
}

describe("the console header", () => {
  it("shows a production profile badge for cap-kernel --profile production", async () => {
    const { badge, page } = await badgeOf("production");
    await expect.poll(() => badge.isVisible()).toBe(true);
    expect(await badge.textContent()).toBe("production profile");
    await page.close();
  });

  it("shows no badge for the default profile", async () => {
    const { badge, page } = await badgeOf();
    expect(await badge.getAttribute("data-profile")).toBe("cap");
    expect(await badge.isHidden()).toBe(true);
    await page.close();
  });
});
