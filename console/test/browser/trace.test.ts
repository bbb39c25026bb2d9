/**
 * The trace view in headless Chromium against the real kernel running its demo (`cap-kernel demo`, spawned on
 * an SQLite file of its own, with its built-in echo driver answering every @echo). The human posts a message
 * mentioning @echo from the console, opens its trace from the message, and sees one timeline: the message
 * posted, the event enqueued for echo, its delivery claimed, echo's reply and the ack — in the kernel's order,
 * the same after a reload; from the queue view's row of that event, the same story. A post that carried a
 * `traceparent` shows its trace id, which Copy puts on the clipboard. A link to an event that does not exist,
 * a link of the wrong shape, and a pod the person is not a member of each show the not-found state.
 *
 * It saves `test-results/console-trace.png`; with CAP_DOCS_SCREENSHOT=1 it also writes the docs' picture of
 * the view (docs/build/assets/console-trace-view.png, committed and described in docs/observability.md).
 */
import { copyFileSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { eventually, kernelBin, type Spawned, spawnProcess } from "@commonly/cap-kernel/testing";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "./chromium.js";

const here = dirname(fileURLToPath(import.meta.url));
const resultsDir = resolve(here, "..", "..", "test-results");
const docsShot = resolve(here, "..", "..", "..", "docs", "build", "assets", "console-trace-view.png");
const TRACE_ID = "5e1c0ffee0ddba11cafe0123456789ab";
const TRACEPARENT = `00-${TRACE_ID}-0badc0ffee123456-01`;

let demo: Spawned;
let url: string;
let podId: string;
let human: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const pageProblems: string[] = [];

/** An admin API call as the demo's human; JSON in and out, never throws on a status. */
async function asHuman(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${human}`,
      ...(body ? { "content-type": "application/json" } : {}),
      ...headers,
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  // biome-ignore lint/suspicious/noExplicitAny: test code reads the kernel's untyped JSON answers.
  return { status: res.status, body: (await res.json().catch(() => null)) as any };
}

/** The kinds of the timeline's rows, top to bottom, as the page shows them. */
const timelineKinds = () =>
  page.locator("table.timeline tbody tr").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-kind")));

/** Waits until the open trace shows echo's reply and ack, then checks the story and its order. */
async function expectEchoStory() {
  await expect
    .poll(timelineKinds, { timeout: 20_000 })
    .toEqual(expect.arrayContaining(["reply.posted", "event.acked"]));
  const rows = page.locator("table.timeline tbody tr");
  const seen = await rows.evaluateAll((trs) =>
    trs.map((r) => ({
      kind: r.getAttribute("data-kind"),
      lane: r.getAttribute("data-lane"),
      at: r.getAttribute("data-at") ?? "",
    })),
  );
  const echo = seen.filter((r) => r.lane === "echo").map((r) => r.kind);
  // The echo driver posts its reply, then acks; the human's post and every enqueue come first.
  expect(seen[0]).toMatchObject({ kind: "message.posted", lane: "pod" });
  expect(echo.slice(0, 2)).toEqual(["event.enqueued", "delivery.claimed"]);
  expect(echo.slice(2).sort()).toEqual(["event.acked", "reply.posted"]);
  const times = seen.map((r) => Date.parse(r.at));
  expect(times).toEqual([...times].sort((a, b) => a - b));
  expect(await rows.locator("td.offset").first().textContent()).toBe("+0 ms");
  expect(await page.locator("tr[data-kind='delivery.claimed'] .entry-title").textContent()).toBe(
    "delivery 1 claimed",
  );
  expect(await page.locator("tr[data-kind='event.acked'] .entry-detail").textContent()).toBe(
    "outcome: posted",
  );
}

/** Posts as the human from the console's composer and waits for echo's threaded reply; returns the ids. */
async function postFromConsole(content: string) {
  await page.locator("#post-content").fill(content);
  await page.locator("#post-form button[type=submit]").click();
  const mine = page.locator("li.message.from-human", { hasText: content });
  await mine.waitFor();
  await page
    .locator("li.message.from-agent", { hasText: `echo: ${content.replace("@echo ", "")}` })
    .waitFor();
  return (await mine.getAttribute("data-id")) ?? "";
}

/** echo's event for a message, from the queue view (payload.messageId). */
async function echoEventOf(messageId: string): Promise<string> {
  return eventually(async () => {
    const q = await asHuman("GET", `/api/admin/pods/${podId}/queue`);
    const echo = q.body.agents.find((a: { agentName: string }) => a.agentName === "echo");
    return echo?.events.find((e: { payload: { messageId?: string } }) => e.payload.messageId === messageId)
      ?.id;
  }, `echo's event for ${messageId} is in the queue view`);
}

beforeAll(async () => {
  const db = `sqlite:${join(mkdtempSync(join(tmpdir(), "cap-trace-")), "demo.db")}`;
  demo = spawnProcess(process.execPath, [kernelBin(), "demo", "--port", "0", "--db", db], { name: "demo" });
  await demo.waitForOutput(/dev console/, 30_000);
  const out = demo.output();
  url = /running at (http:\/\/\S+)/.exec(out)?.[1] ?? "";
  podId = /pod id\s+(\S+)/.exec(out)?.[1] ?? "";
  human = /human token\s+(cm_user_[0-9a-f]+)/.exec(out)?.[1] ?? "";
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: url });
  page = await context.newPage();
  page.on("console", (m) => {
    // A trace link to nothing answers 404 on purpose; Chromium logs each refused request.
    if (m.type() === "error" && !/Failed to load resource/.test(m.text()))
      pageProblems.push(`console error: ${m.text()}`);
  });
  page.on("pageerror", (e) => pageProblems.push(`uncaught: ${e.message}`));
  await page.goto(`${url}/console/#token=${human}`);
  await page.waitForSelector(`#pod-select option[value="${podId}"]`, { state: "attached" });
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await demo?.stop();
});

describe("the trace view of the dev console, on the demo", () => {
  it("follows a message mentioning @echo from the message: event, delivery, reply and ack, in order", async () => {
    const messageId = await postFromConsole("@echo where did my message go?");
    await page.locator(`li.message[data-id="${messageId}"] a.trace-link`).click();
    await expect.poll(() => page.evaluate(() => location.hash)).toBe(`#/trace/${podId}/message/${messageId}`);
    expect(await page.locator("#app").isHidden()).toBe(true);
    expect(await page.locator("#trace-title").textContent()).toBe(`Trace of message ${messageId}`);
    await expectEchoStory();
    // The console's post carried no traceparent: no trace id, and it says why.
    expect(await page.locator(".trace-id-line").getAttribute("data-trace-id")).toBe("");
    expect(await page.locator(".trace-root").textContent()).toMatch(
      new RegExp(`^Message ${messageId} by demo`),
    );

    // Reload-safe: the hash route opens the same trace after a reload.
    await page.reload();
    await page.locator("table.timeline").waitFor();
    expect(await page.locator("#trace-title").textContent()).toBe(`Trace of message ${messageId}`);
    await expectEchoStory();

    await page.locator("#trace-back").click();
    await page.locator("#app").waitFor();
    expect(await page.locator("#trace-view").isHidden()).toBe(true);
  });

  it("opens the same story from the queue view's row of the event, with the trace id a traced post carried", async () => {
    const posted = await asHuman(
      "POST",
      `/api/pods/${podId}/messages`,
      { content: "@echo follow me" },
      { traceparent: TRACEPARENT },
    );
    expect(posted.status).toBe(201);
    const messageId = posted.body.id as string;
    const eventId = await echoEventOf(messageId);
    await page.evaluate(() => {
      location.hash = "#/";
    });
    await page.locator("li.message.from-agent", { hasText: "echo: follow me" }).waitFor();

    const row = page.locator(`[data-agent^="echo/"] tr[data-event="${eventId}"]`);
    await row.locator("a.trace-link").click();
    await expect.poll(() => page.evaluate(() => location.hash)).toBe(`#/trace/${podId}/${eventId}`);
    expect(await page.locator("#trace-title").textContent()).toBe(`Trace of event ${eventId}`);
    await expectEchoStory();
    // Rooted at the cause: the message and every event it enqueued (helper hears every human message).
    expect(await page.locator(".trace-root code").textContent()).toBe(messageId);
    expect(await page.locator(`.trace-events li[data-event="${eventId}"]`).textContent()).toMatch(
      /mention\.received for echo/,
    );
    expect(await page.locator("table.timeline thead th").allTextContents()).toEqual([
      "Time",
      "pod",
      "echo",
      "helper",
    ]);

    expect(await page.locator(".trace-id").textContent()).toBe(TRACE_ID);
    await page.locator(".trace-id-line button.copy").click();
    await expect.poll(() => page.locator("#toast").textContent()).toBe("Trace id copied.");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(TRACE_ID);

    mkdirSync(resultsDir, { recursive: true });
    const shot = join(resultsDir, "console-trace.png");
    await page.locator("#toast").evaluate((t) => {
      (t as HTMLElement).hidden = true;
    });
    // A short window: the full-page picture ends where the view does.
    await page.setViewportSize({ width: 1280, height: 600 });
    await page.screenshot({ path: shot, fullPage: true });
    if (process.env.CAP_DOCS_SCREENSHOT === "1") copyFileSync(shot, docsShot);
    console.log(`screenshot: ${shot}`);

    // On a phone the lanes scroll inside their own box; the page never scrolls sideways.
    await page.setViewportSize({ width: 400, height: 900 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    expect(await page.locator(".timeline-wrap").evaluate((w) => w.scrollWidth > w.clientWidth)).toBe(true);
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it("shows the not-found state for a link to no event and for a link of the wrong shape", async () => {
    await page.goto(`${url}/console/#/trace/${podId}/evt_does_not_exist`);
    const state = page.locator("[data-trace-state]");
    await expect.poll(() => state.getAttribute("data-trace-state")).toBe("not-found");
    expect(await state.textContent()).toBe(
      `Not found: there is no event evt_does_not_exist in pod ${podId}.`,
    );
    expect(await page.locator("table.timeline").count()).toBe(0);

    await page.goto(`${url}/console/#/trace/${podId}/message/`);
    await expect.poll(() => state.textContent()).toMatch(/is not a trace link/);
    expect(await state.getAttribute("data-trace-state")).toBe("not-found");
  });

  it("shows a pod the person is not a member of as not found", async () => {
    const made = await asHuman("POST", "/api/users", { name: "outsider" });
    expect(made.status).toBe(201);
    const outsider = await browser.newContext();
    try {
      const p = await outsider.newPage();
      await p.goto(`${url}/console/#token=${made.body.token}`);
      await p.locator("#whoami", { hasText: "outsider" }).waitFor();
      await p.goto(`${url}/console/#/trace/${podId}/message/msg_anything`);
      const state = p.locator("[data-trace-state]");
      await expect
        .poll(() => state.textContent())
        .toBe(`Not found: pod ${podId} does not exist, or you are not a member of it.`);
    } finally {
      await outsider.close();
    }
  });

  it("logged no console error and no uncaught exception", () => {
    expect(pageProblems).toEqual([]);
  });
});
