/**
 * The dev console at 400, 1280 and 1440 px in headless Chromium against a real `cap-kernel` (spawned,
 * SQLite, one delivery per event): two events released by their driver with long reasons — 400 characters
 * without a space, and 400 with spaces — become dead letters, and a third is held by the driver (a running
 * delivery, with a Stop button). At each width (one browser, one context per width) the page must not scroll
 * sideways and every Requeue and Stop button must lie inside the window, unclipped by any scrolling or
 * hidden-overflow ancestor, and the Requeue buttons still requeue. Screenshots at 400 and 1280 px go to
 * console/test-results/.
 */
import { mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { startKernel, type TestKernel } from "@commonly/cap-kernel/testing";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "./chromium.js";

const resultsDir = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "test-results");
const REASONS = [
  `upstream-${"x".repeat(390)}`,
  Array.from({ length: 50 }, (_, i) => `reason${i}`)
    .join(" ")
    .slice(0, 400),
];

let kernel: TestKernel;
let browser: Browser;
const ids: string[] = [];
let running = "";

async function cap(method: string, path: string, body?: unknown) {
  const res = await fetch(`${kernel.url}/api/agents/runtime${path}`, {
    method,
    headers: {
      authorization: `Bearer ${kernel.agents.relay!.token}`,
      ...(body ? { "content-type": "application/json" } : {}),
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${await res.text()}`);
  return res.json();
}

beforeAll(async () => {
  // A lease far longer than the test, so the held delivery runs (and offers Stop) at every width.
  kernel = await startKernel({ agents: ["relay"], leaseSeconds: 300, maxAttempts: 1 });
  for (const title of ["first", "second"]) {
    const { id } = await kernel.admin.post("/api/admin/events", {
      agentName: "relay",
      podId: kernel.podId,
      type: "task.assigned",
      payload: { taskId: title, title },
    });
    ids.push(id);
  }
  const { events } = await cap("GET", "/events?limit=10");
  expect(events).toHaveLength(2);
  // Released on their only attempt: dead letters at once, each listed with its driver's reason.
  for (const [i, id] of ids.entries()) {
    const answer = await cap("POST", `/events/${id}/release`, { attempts: 1, reason: REASONS[i] });
    expect(answer).toMatchObject({ status: "failed" });
  }
  running = await kernel.emit("relay", "task.assigned", { taskId: "held", title: "held" });
  expect((await cap("GET", "/events?limit=10")).events.map((e: { id: string }) => e.id)).toEqual([running]);
  browser = await launchChromium();
  mkdirSync(resultsDir, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await kernel?.stop();
});

/** Where each Requeue and Stop button is, and whether a clipping ancestor or the window cuts it off. */
function buttonFaults(page: Page) {
  return page.evaluate(() => {
    const faults: string[] = [];
    const doc = document.documentElement;
    if (doc.scrollWidth > innerWidth) {
      const wide = [...document.querySelectorAll<HTMLElement>("body *")]
        .filter((e) => e.getBoundingClientRect().right > innerWidth + 0.5)
        .map((e) => `<${e.tagName.toLowerCase()} class="${e.className}">`);
      faults.push(`page is ${doc.scrollWidth} px wide in ${innerWidth}: ${wide.slice(0, 3).join(", ")}`);
    }
    for (const button of document.querySelectorAll<HTMLElement>(
      "#dead-letters button.requeue, #queues button.stop",
    )) {
      const b = button.getBoundingClientRect();
      const row = button.closest("tr");
      const id = `${row?.getAttribute("data-dead") ?? row?.getAttribute("data-event")} ${button.textContent}`;
      if (b.width === 0 || b.left < 0 || b.right > innerWidth)
        faults.push(`${id}: at ${Math.round(b.left)}–${Math.round(b.right)} of ${innerWidth}`);
      for (let el = button.parentElement; el && el !== document.body; el = el.parentElement) {
        const style = getComputedStyle(el);
        if (style.overflowX === "visible") continue;
        const box = el.getBoundingClientRect();
        if (b.left < box.left - 0.5 || b.right > box.right + 0.5)
          faults.push(`${id}: cut off by <${el.tagName.toLowerCase()} class="${el.className}">`);
      }
    }
    return faults;
  });
}

describe("the dev console at three widths, with long release reasons", () => {
  it.each([400, 1280, 1440])(
    "keeps every Requeue and Stop button inside the window at %i px, with no sideways scroll",
    async (width) => {
      const context = await browser.newContext({ viewport: { width, height: 900 } });
      const page = await context.newPage();
      const problems: string[] = [];
      page.on("pageerror", (e) => problems.push(`uncaught: ${e.message}`));
      await page.goto(`${kernel.url}/console/#token=${kernel.human.token}`);
      for (const id of ids) await page.locator(`#dead-letters tr[data-dead="${id}"]`).waitFor();
      const reasons = await page.locator("#dead-letters .release-reason").allTextContents();
      expect(reasons.sort()).toEqual([...REASONS].sort());
      await page.locator(`tr[data-event="${ids[0]}"][data-state="failed"]`).waitFor();
      await page.locator(`tr[data-event="${running}"] button.stop`).waitFor();
      expect(await buttonFaults(page)).toEqual([]);
      for (const id of ids)
        expect(await page.locator(`#dead-letters tr[data-dead="${id}"] button.requeue`).isVisible()).toBe(
          true,
        );
      if (width !== 1440) {
        const shot = join(resultsDir, `console-${width}.png`);
        await page.screenshot({ path: shot, fullPage: true });
        console.log(`screenshot: ${shot}`);
      }
      expect(problems).toEqual([]);
      await context.close();
    },
  );
});
