/**
 * The Stop button (feature `cancel`) in headless Chromium against a real `cap-kernel` (spawned, SQLite). A
 * plain member of the pod, not an admin, signs in; a worker agent holds a delivery through CAP (raw HTTP:
 * this package must not depend on the SDK) and watches it for a cancel. Clicking Stop cancels it as that
 * human: the worker's held watch answers `cancelRequested`, its renew answers `409 lease_lost` with
 * `details.cancelled`, the queue view shows `cancelled` with its reason, time and "by you", and the worker's
 * `cancelled` ack is shown as the driver having stopped. A Stop that finds the event already acked says
 * there was nothing to stop; a delivery a newer human message superseded (double texting, `interrupt`) shows
 * as cancelled by the kernel; a Stop whose request never reaches the kernel, and one by a person who has just
 * been removed from the pod, say why in the row and in a toast, and leave the button to try again.
 */
import { mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { startKernel, type TestKernel } from "@commonly/cap-kernel/testing";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "./chromium.js";

const resultsDir = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "test-results");

let kernel: TestKernel;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let member: { id: string; name: string; token: string };
const pageProblems: string[] = [];

/** A CAP call as the worker agent; never throws on a status. */
function worker(method: string, path: string, body?: unknown) {
  // biome-ignore lint/suspicious/noExplicitAny: test code reads the kernel's untyped JSON answers.
  return kernel.cap<any>(kernel.agents.worker!.token, method, path, body);
}

/** Injects a task for the worker and takes its delivery, as a driver's poll would; returns the event id. */
async function holdOne(title: string) {
  const id = await kernel.emit("worker", "task.assigned", { taskId: title, title });
  const polled = await worker("GET", "/events?limit=10");
  expect(polled.status).toBe(200);
  expect(polled.body.events.map((e: { id: string; attempts: number }) => [e.id, e.attempts])).toEqual([
    [id, 1],
  ]);
  return id;
}

/** The event's row with a Stop button, as the console shows a running delivery. */
async function runningRow(id: string) {
  const row = page.locator(`tr[data-event="${id}"][data-state="leased"]`);
  await row.locator("button.stop").waitFor();
  return row;
}

beforeAll(async () => {
  // A lease far longer than the test: every "running" delivery below stays running until it is cancelled.
  kernel = await startKernel({ agents: ["worker"], leaseSeconds: 300, maxAttempts: 3 });
  const made = await kernel.admin.post("/api/users", { name: "mia" });
  member = { id: made.user.id, name: made.user.name, token: made.token };
  await kernel.admin.post(`/api/pods/${kernel.podId}/members`, { userId: member.id, role: "member" });
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  page = await context.newPage();
  page.on("console", (m) => {
    // The membership test makes the refresh fail on purpose; Chromium logs each refused request.
    if (m.type() === "error" && !/Failed to load resource/.test(m.text()))
      pageProblems.push(`console error: ${m.text()}`);
  });
  page.on("pageerror", (e) => pageProblems.push(`uncaught: ${e.message}`));
  await page.route("**/*", (route) =>
    new URL(route.request().url()).hostname === "127.0.0.1" ? route.continue() : route.abort(),
  );
  await page.goto(`${kernel.url}/console/#token=${member.token}`);
  await page.waitForSelector(`#pod-select option[value="${kernel.podId}"]`, { state: "attached" });
  await page.locator("#whoami", { hasText: member.name }).waitFor();
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await kernel?.stop();
});

describe("stopping a running delivery from the dev console", () => {
  it("cancels it as the signed-in member, wakes the driver's watch, and shows who stopped it and why", async () => {
    const id = await holdOne("the wrong repository");
    const row = await runningRow(id);
    // Nothing but the running delivery offers Stop.
    expect(await page.locator("button.stop").count()).toBe(1);

    mkdirSync(resultsDir, { recursive: true });
    await page.screenshot({ path: join(resultsDir, "console-running.png"), fullPage: true });

    // The worker watches its delivery, as a driver following the SDK does while its handler runs.
    const watch = worker("GET", `/events/${id}/cancellation?attempts=1&waitSeconds=20`);
    await row.locator("button.stop").click();
    const woke = await watch;
    expect(woke.status).toBe(200);
    expect(woke.body).toMatchObject({ cancelRequested: true, reason: "requested" });
    await expect.poll(() => page.locator("#toast").textContent()).toMatch(new RegExp(`^Stopped ${id}`));

    const cancelled = page.locator(`tr[data-event="${id}"][data-state="cancelled"]`);
    await cancelled.waitFor();
    expect(await cancelled.locator("button.stop").count()).toBe(0);
    expect(await cancelled.locator(".cancel-reason").textContent()).toBe("stopped on request");
    expect(await cancelled.locator(".cancel-reason").getAttribute("title")).toBe("requested");
    expect(await cancelled.locator(".cancelled-by").textContent()).toBe("you");
    const wire = await kernel.state("worker", id);
    expect(wire).toMatchObject({
      state: "cancelled",
      cancelReason: "requested",
      cancelledBy: { kind: "human", id: member.id },
    });
    expect(await cancelled.locator(".cancel-meta time").getAttribute("datetime")).toBe(wire?.cancelledAt);
    await expect
      .poll(() => page.locator('[data-agent="worker/default"] .count.s-cancelled').textContent())
      .toBe("cancelled 1");

    // The driver's side: its lease is gone, and it acks the cancelled delivery once its handler stopped.
    const renew = await worker("POST", `/events/${id}/renew`, { attempts: 1 });
    expect(renew.status).toBe(409);
    expect(renew.body).toMatchObject({ code: "lease_lost", details: { cancelled: true } });
    const ack = await worker("POST", `/events/${id}/ack`, {
      result: { outcome: "cancelled", reason: "requested" },
    });
    expect(ack.status).toBe(200);
    await cancelled.locator(".cancel-acked").waitFor();
    expect(await cancelled.getAttribute("data-state")).toBe("cancelled");
    expect((await worker("GET", "/events?limit=10")).body.events).toEqual([]);

    const shot = join(resultsDir, "console-stop.png");
    await page.screenshot({ path: shot, fullPage: true });
    console.log(`screenshot: ${shot}`);
  });

  it("says there was nothing to stop when the driver acked the event just before the click", async () => {
    const id = await holdOne("done already");
    const row = await runningRow(id);
    // The ack lands between the page showing Stop and the kernel taking the cancel: the kernel answers
    // 200 with `changed: false` and the event's state (CAP-CANCEL-3).
    await page.route(
      `**/api/pods/*/events/${id}/cancel`,
      async (route) => {
        const acked = await worker("POST", `/events/${id}/ack`, { result: { outcome: "posted" } });
        expect(acked.status).toBe(200);
        await route.continue();
      },
      { times: 1 },
    );
    await row.locator("button.stop").click();
    await expect
      .poll(() => page.locator("#toast").textContent())
      .toBe(`Nothing to stop: ${id} was already acked.`);
    await page.locator(`tr[data-event="${id}"][data-state="acked"]`).waitFor();
    expect((await kernel.state("worker", id))?.state).toBe("acked");
  });

  it("shows a Stop that never reached the kernel as failed, and the button works again", async () => {
    const id = await holdOne("network trouble");
    const row = await runningRow(id);
    await page.route(`**/api/pods/*/events/${id}/cancel`, (route) => route.abort("connectionreset"), {
      times: 1,
    });
    await row.locator("button.stop").click();
    const error = row.locator(".stop-error");
    await expect.poll(() => error.textContent()).toMatch(/^Stop failed: the kernel did not answer/);
    expect(await error.getAttribute("role")).toBe("alert");
    await expect.poll(() => page.locator("#toast").getAttribute("class")).toBe("toast error");
    expect(await page.locator("#toast").textContent()).toBe(await error.textContent());
    // The refreshes that follow keep the error beside the event, and the button is ready again.
    for (let i = 0; i < 2; i++)
      await page.waitForResponse((r) => r.url().endsWith(`/pods/${kernel.podId}/queue`));
    expect(await row.locator(".stop-error").textContent()).toMatch(/^Stop failed/);
    expect(await row.locator("button.stop").isEnabled()).toBe(true);
    expect((await kernel.state("worker", id))?.state).toBe("leased");

    await row.locator("button.stop").click();
    await page.locator(`tr[data-event="${id}"][data-state="cancelled"]`).waitFor();
    expect(await page.locator(`tr[data-event="${id}"] .stop-error`).count()).toBe(0);
  });

  it("shows a delivery a newer human message superseded as cancelled by the kernel", async () => {
    await kernel.setDoubleTexting("worker", "interrupt");
    try {
      await kernel.say("please summarise the thread");
      const first = await worker("GET", "/events?limit=10");
      expect(first.body.events.map((e: { type: string }) => e.type)).toEqual(["message.posted"]);
      const held = first.body.events[0].id as string;
      await runningRow(held);
      // The human texts again while the turn runs: under `interrupt` the running delivery is cancelled.
      await kernel.say("actually, only the last day");
      const superseded = page.locator(`tr[data-event="${held}"][data-state="cancelled"]`);
      await superseded.waitFor();
      expect(await superseded.locator(".cancel-reason").textContent()).toBe("superseded by a newer message");
      expect(await superseded.locator(".cancelled-by").textContent()).toBe("the kernel");
      // The newer message's event is the next turn: the worker takes and finishes it.
      const next = await worker("GET", "/events?limit=10");
      expect(next.body.events).toHaveLength(1);
      expect(next.body.events[0].supersedes).toEqual([held]);
      expect((await worker("POST", `/events/${next.body.events[0].id}/ack`, {})).status).toBe(200);
    } finally {
      await kernel.setDoubleTexting("worker", "enqueue");
    }
  });

  it("shows the kernel's refusal when the person is no longer a member of the pod", async () => {
    const id = await holdOne("not yours any more");
    const row = await runningRow(id);
    await kernel.admin.delete(`/api/pods/${kernel.podId}/members/${member.id}`);
    await row.locator("button.stop").click();
    const error = row.locator(".stop-error");
    await expect.poll(() => error.textContent(), { timeout: 10_000 }).toMatch(/^Stop failed: .*\(\w+\)$/);
    const text = (await error.textContent()) ?? "";
    // The kernel refuses a non-member with the admin surface's own code for it, never a 500.
    expect(text).toMatch(/\((pod_not_found|not_pod_member|forbidden|event_not_found)\)$/);
    expect(await row.locator("button.stop").isEnabled()).toBe(true);
    const still = await kernel.state("worker", id);
    expect(still?.state).toBe("leased");
  });

  it("logged no console error and no uncaught exception", () => {
    expect(pageProblems).toEqual([]);
  });
});
