/**
 * Loads every page of the built site (docs/site/, served under /docs/ on 127.0.0.1) in headless Chromium and
 * fails on: console errors, uncaught exceptions, failed or 4xx/5xx requests, images that did not load,
 * internal links to missing pages or missing #fragments, layout faults at 1280 px (layout-faults.mjs), and any request for a host other than 127.0.0.1
 * (blocked, then reported: the site must work with no network). Saves screenshots of the landing page and the
 * CAP API reference to docs/test-results/ and prints their paths.
 *
 * CAP_TEST_DOCS_URL (e.g. http://127.0.0.1:7070/docs/) runs the same test against a kernel serving the site.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "./chromium.mjs";
import { layoutFaults } from "./layout-faults.mjs";
import { resolveInside, startStaticServer } from "./static-server.mjs";

const docsDir = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const siteDir = join(docsDir, "site");
const resultsDir = join(docsDir, "test-results");
const manifestFile = join(siteDir, "pages.json");
if (!existsSync(manifestFile)) {
  throw new Error(
    `${manifestFile} is missing: build the site first (pnpm --filter @commonly/cap-docs build)`,
  );
}
const { pages } = JSON.parse(readFileSync(manifestFile, "utf8"));

let server;
let browser;
let context;
const fragmentsWanted = []; // {from, page, fragment}
const idsByPage = new Map();

beforeAll(async () => {
  const external = process.env.CAP_TEST_DOCS_URL;
  server = external
    ? { url: external.endsWith("/") ? external : `${external}/`, close: async () => {} }
    : await startStaticServer(siteDir, "/docs/");
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  mkdirSync(resultsDir, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** Opens one page and returns every problem found on it, plus its links and ids. */
async function visit(href) {
  const problems = [];
  const page = await context.newPage();
  await page.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith("data:") || url.startsWith("blob:")) return route.continue();
    if (new URL(url).hostname !== "127.0.0.1") {
      problems.push(`request leaving 127.0.0.1: ${url}`);
      return route.abort();
    }
    return route.continue();
  });
  page.on("console", (msg) => {
    if (msg.type() === "error") problems.push(`console error: ${msg.text()}`);
  });
  page.on("pageerror", (err) => problems.push(`uncaught exception: ${err.message}`));
  page.on("requestfailed", (req) => {
    if (new URL(req.url()).hostname === "127.0.0.1")
      problems.push(`request failed: ${req.url()} ${req.failure()?.errorText}`);
  });
  page.on("response", (res) => {
    if (res.status() >= 400) problems.push(`HTTP ${res.status()}: ${res.url()}`);
  });
  const response = await page.goto(server.url + href, { waitUntil: "load" });
  if (response?.status() !== 200) problems.push(`page answered ${response?.status()}`);
  if (await page.locator("#swagger-ui[data-spec]").count()) {
    // The interactive reference renders after fetching its JSON; wait for its operations (or its error text).
    await page.waitForSelector("#swagger-ui .opblock, #swagger-ui.notice", { timeout: 20_000 });
    if (await page.locator("#swagger-ui.notice").count())
      problems.push(`API reference failed: ${await page.locator("#swagger-ui").textContent()}`);
  }
  const found = await page.evaluate(() => ({
    links: [...document.querySelectorAll("a[href]")]
      .filter((a) => !a.closest("#swagger-ui"))
      .map((a) => a.href),
    ids: [...document.querySelectorAll("[id]")].map((e) => e.id),
    brokenImages: [...document.images]
      .filter((img) => !img.complete || img.naturalWidth === 0)
      .map((img) => img.src),
    title: document.title,
  }));
  for (const src of found.brokenImages) problems.push(`image did not load: ${src}`);
  for (const fault of await layoutFaults(page)) problems.push(`layout: ${fault}`);
  return { page, problems, ...found };
}

function checkLink(from, link, problems) {
  const url = new URL(link);
  const base = new URL(server.url);
  if (url.origin !== base.origin) return; // external links are allowed to exist, never fetched
  if (!url.pathname.startsWith(base.pathname)) {
    problems.push(`link outside the site: ${link}`);
    return;
  }
  const rel = url.pathname.slice(base.pathname.length) || "index.html";
  if (!resolveInside(siteDir, rel)) {
    problems.push(`broken link: ${link}`);
    return;
  }
  if (url.hash && rel.endsWith(".html"))
    fragmentsWanted.push({ from, page: rel, fragment: decodeURIComponent(url.hash.slice(1)) });
}

describe("the built docs site in headless Chromium", () => {
  it("has the pages the site map promises", () => {
    const hrefs = pages.map((p) => p.href);
    for (const want of [
      "index.html",
      "cap.html",
      "requirements.html",
      "api/cap.html",
      "api/admin.html",
      "benchmarks.html",
    ]) {
      expect(hrefs).toContain(want);
    }
  });

  it.each(pages.map((p) => [p.href]))(
    "loads %s with no console error, broken link, missing asset or off-host request",
    async (href) => {
      const { page, problems, links, ids } = await visit(href);
      idsByPage.set(href, new Set(ids));
      for (const link of links) checkLink(href, link, problems);
      await page.close();
      expect(problems).toEqual([]);
    },
  );

  it("finds every #fragment that an internal link points at", () => {
    const missing = fragmentsWanted
      .filter(({ page, fragment }) => idsByPage.has(page) && !idsByPage.get(page).has(fragment))
      .map(({ from, page, fragment }) => `${from} → ${page}#${fragment}`);
    expect([...new Set(missing)]).toEqual([]);
  });

  it("saves screenshots of the landing page and the CAP API reference", async () => {
    const landing = await context.newPage();
    await landing.goto(`${server.url}index.html`, { waitUntil: "load" });
    const landingPng = join(resultsDir, "landing.png");
    await landing.screenshot({ path: landingPng, fullPage: true });
    await landing.close();

    const api = await context.newPage();
    await api.goto(`${server.url}api/cap.html`, { waitUntil: "load" });
    await api.waitForSelector("#swagger-ui .opblock", { timeout: 20_000 });
    // Open the first operation so the screenshot shows parameters and responses, not only a list.
    await api.locator("#swagger-ui .opblock-summary").first().click();
    await api.waitForSelector("#swagger-ui .opblock.is-open .responses-wrapper", { timeout: 10_000 });
    const apiPng = join(resultsDir, "api-reference.png");
    await api.screenshot({ path: apiPng, fullPage: false });
    await api.close();

    console.log(`screenshot: ${landingPng}\nscreenshot: ${apiPng}`);
    expect(existsSync(landingPng) && existsSync(apiPng)).toBe(true);
  });
});
