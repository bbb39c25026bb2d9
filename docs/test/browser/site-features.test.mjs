/**
 * What a reader of the built site relies on beyond "every page loads" (site.test.mjs), in headless Chromium
 * at 400, 1280 and 1440 px (one browser, one context per width): no page overflows sideways, code blocks do
 * not scroll sideways, the navigation folds behind a Menu button at 400 px and opens, search finds a
 * section and its result opens it (also from a file:// copy), the dark toggle changes the page and is
 * remembered across a reload, a copy button puts its block in the clipboard, llms.txt / llms-full.txt
 * are built from the sources, and every benchmark chart's labels lie inside the chart.
 * Screenshots (home light and dark, search with results) go to docs/test-results/.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { launchChromium } from "./chromium.mjs";
import { layoutFaults } from "./layout-faults.mjs";
import { resolveInside, startStaticServer } from "./static-server.mjs";

const docsDir = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const repoRoot = resolve(docsDir, "..");
const siteDir = join(docsDir, "site");
const resultsDir = join(docsDir, "test-results");
const manifestFile = join(siteDir, "pages.json");
if (!existsSync(manifestFile)) throw new Error(`${manifestFile} is missing: build the site first`);
const { pages } = JSON.parse(readFileSync(manifestFile, "utf8"));
const WIDTHS = [400, 1280, 1440];

let server;
let browser;
const contexts = new Map();

beforeAll(async () => {
  server = await startStaticServer(siteDir, "/docs/");
  browser = await launchChromium();
  for (const width of WIDTHS) {
    const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme: "light" });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], {
      origin: new URL(server.url).origin,
    });
    contexts.set(width, context);
  }
  mkdirSync(resultsDir, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function open(width, href) {
  const page = await contexts.get(width).newPage();
  await page.goto(server.url + href, { waitUntil: "load" });
  if (await page.locator("#swagger-ui[data-spec]").count())
    await page.waitForSelector("#swagger-ui .opblock", { timeout: 20_000 });
  return page;
}

describe("the docs site's layout at 400, 1280 and 1440 px", () => {
  // 1280 px is checked on every page by site.test.mjs, which loads each page at that width anyway.
  it.each([400, 1440])("lays out every page at %i px without sideways scrolling", async (width) => {
    const faults = [];
    const page = await contexts.get(width).newPage();
    for (const { href } of pages) {
      await page.goto(server.url + href, { waitUntil: "load" });
      if (await page.locator("#swagger-ui[data-spec]").count())
        await page.waitForSelector("#swagger-ui .opblock", { timeout: 20_000 });
      for (const f of await layoutFaults(page)) faults.push(`${href}: ${f}`);
    }
    await page.close();
    expect(faults).toEqual([]);
  });

  it("folds the navigation behind a Menu button at 400 px and opens it", async () => {
    const page = await open(400, "quickstart/driver-typescript.html");
    const nav = page.locator("nav.side");
    expect(await nav.isVisible()).toBe(false);
    const menu = page.locator("button.nav-toggle");
    expect(await menu.isVisible()).toBe(true);
    await menu.click();
    expect(await menu.getAttribute("aria-expanded")).toBe("true");
    const link = nav.locator("a", { hasText: "CAP v1 specification" });
    await link.click();
    await page.waitForURL(/cap\.html$/);
    await page.close();
    const wide = await open(1280, "index.html");
    expect(await wide.locator("nav.side").isVisible()).toBe(true);
    expect(await wide.locator("button.nav-toggle").isVisible()).toBe(false);
    await wide.close();
  });
});

describe("search", () => {
  it.each(WIDTHS)("finds a section at %i px and opens it at its heading", async (width) => {
    const page = await open(width, "quickstart/driver-python.html");
    const box = page.locator("#site-search");
    expect(await box.isVisible()).toBe(true);
    await page.keyboard.press("/");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("site-search");
    await page.keyboard.type("lease expires");
    const first = page.locator("#search-results a").first();
    await first.waitFor();
    const inView = await page.locator("#search-results").evaluate((el) => {
      const r = el.getBoundingClientRect();
      return r.left >= 0 && r.right <= innerWidth;
    });
    expect(inView).toBe(true);
    if (width === 1280) {
      const shot = join(resultsDir, "search.png");
      await page.screenshot({ path: shot });
      console.log(`screenshot: ${shot}`);
    }
    const target = new URL(await first.getAttribute("href"));
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Enter");
    await page.waitForURL((u) => u.pathname === target.pathname);
    if (target.hash) expect(await page.locator(target.hash.replace(/^#/, "#")).count()).toBe(1);
    expect(await page.locator("main").textContent()).toMatch(/lease/i);
    await page.close();
  });

  it("says when nothing matches", async () => {
    const page = await open(1280, "index.html");
    await page.fill("#site-search", "zzqxj-nothing-like-this");
    await page.locator("#search-results p", { hasText: "Nothing matches" }).waitFor();
    await page.close();
  });

  it("works from a file:// copy of the site", async () => {
    const page = await contexts.get(1280).newPage();
    await page.goto(pathToFileURL(join(siteDir, "quickstart", "driver-http.html")).href);
    await page.fill("#site-search", "dead letter");
    const first = page.locator("#search-results a").first();
    await first.waitFor();
    expect(await first.getAttribute("href")).toMatch(/^file:\/\/.*\.html(#.+)?$/);
    const file = fileURLToPath((await first.getAttribute("href")).replace(/#.*$/, ""));
    expect(existsSync(file)).toBe(true);
    await page.close();
  });
});

describe("dark mode and copy buttons", () => {
  it("switches to dark with the toggle, remembers it across a reload, and switches back", async () => {
    const page = await open(1280, "index.html");
    const bg = () => page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    const light = await bg();
    const lightShot = join(resultsDir, "home-light.png");
    await page.screenshot({ path: lightShot });
    await page.click("button.theme-toggle");
    const dark = await bg();
    expect(dark).not.toBe(light);
    expect(await page.getAttribute("button.theme-toggle", "aria-pressed")).toBe("true");
    await page.reload({ waitUntil: "load" });
    expect(await bg()).toBe(dark);
    const darkShot = join(resultsDir, "home-dark.png");
    await page.screenshot({ path: darkShot });
    console.log(`screenshot: ${lightShot}\nscreenshot: ${darkShot}`);
    await page.click("button.theme-toggle");
    expect(await bg()).toBe(light);
    await page.close();
  });

  it("follows the system's dark preference when the reader has not chosen", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: "dark" });
    const page = await context.newPage();
    await page.goto(`${server.url}index.html`);
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe("dark");
    await context.close();
  });

  it("copies a code block to the clipboard from the keyboard and says Copied", async () => {
    const page = await open(1280, "quickstart/driver-http.html");
    const block = page.locator("main .code-block").first();
    const want = (await block.locator("pre").textContent()).replace(/\n$/, "");
    const button = block.locator("button.copy");
    await button.focus();
    await page.keyboard.press("Enter");
    await expect.poll(() => button.textContent()).toBe("Copied");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(want);
    expect(await page.locator("main pre").count()).toBe(await page.locator("main .code-block").count());
    await page.close();
  });
});

describe("llms.txt and llms-full.txt", () => {
  const llms = readFileSync(join(siteDir, "llms.txt"), "utf8");
  const full = readFileSync(join(siteDir, "llms-full.txt"), "utf8");

  it("lists every page of the site with links that resolve", () => {
    expect(llms).toMatch(/^# .+\n\n> .+\n/);
    const links = [...llms.matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1]);
    for (const { href } of pages) expect(links).toContain(href);
    expect(links.filter((l) => !resolveInside(siteDir, l))).toEqual([]);
  });

  it("carries CAP.md whole, every operation of the OpenAPI files and every error code", () => {
    const cap = readFileSync(join(docsDir, "CAP.md"), "utf8");
    for (const line of cap.split("\n").filter((l) => l.trim() && !l.startsWith("<!--")))
      expect(full).toContain(line.trim());
    for (const file of ["spec/generated/cap-v1.openapi.yaml", "spec/generated/kernel-admin.openapi.yaml"]) {
      const doc = parse(readFileSync(join(repoRoot, file), "utf8"));
      for (const path of Object.keys(doc.paths)) expect(full).toContain(` ${path}\``);
    }
    const { errors } = JSON.parse(readFileSync(join(repoRoot, "spec/generated/errors.json"), "utf8"));
    for (const e of errors) expect(full).toContain(`\`${e.code}\` (${e.status}`);
    if (existsSync(join(docsDir, "drivers.md"))) expect(full).toContain("<!-- source: docs/drivers.md -->");
  });
});

describe("benchmark charts", () => {
  it("draws the table and the charts from the same results.json", () => {
    const { results } = JSON.parse(readFileSync(join(docsDir, "benchmarks", "results.json"), "utf8"));
    const html = readFileSync(join(siteDir, "benchmarks.html"), "utf8");
    const svgs = readdirSync(join(siteDir, "benchmarks"))
      .filter((f) => f.endsWith(".svg"))
      .map((f) => readFileSync(join(siteDir, "benchmarks", f), "utf8"))
      .join("\n");
    for (const r of results) {
      const bar = new RegExp(`<rect [^>]*data-id="${r.id}"/>\\n<text [^>]*>([^<]+)</text>`).exec(svgs);
      expect(bar, r.id).not.toBeNull();
      const shown = r.goal?.of === "ratio" ? r.ratio : r.value;
      const row = html
        .split("<tr>")
        .find(
          (tr) =>
            tr.includes(`<td>${r.name.replace(/&/g, "&amp;")}</td>`) &&
            tr.includes(r.group.replace(/&/g, "&amp;")),
        );
      expect(row, r.id).toBeDefined();
      // The chart's label and the table's cell are the same formatted number…
      expect(row).toMatch(new RegExp(`>${bar[1].replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}[< ]`));
      // …and that number is the result's, to the digits shown (0.257 vs 0.282 fails).
      const displayed = Number(bar[1].replace(/,/g, ""));
      expect(Math.abs(displayed - shown)).toBeLessThanOrEqual(Math.max(0.0005, 0.005 * Math.abs(shown)));
    }
  });

  it("keeps every label of every chart inside its SVG", async () => {
    const charts = readdirSync(join(siteDir, "benchmarks")).filter((f) => f.endsWith(".svg"));
    expect(charts.length).toBeGreaterThan(0);
    const page = await contexts.get(1280).newPage();
    const outside = [];
    for (const file of charts) {
      await page.goto(`${server.url}benchmarks/${file}`);
      const bad = await page.evaluate(() => {
        const svg = document.documentElement;
        const [, , w, h] = svg.getAttribute("viewBox").split(/\s+/).map(Number);
        return [...svg.querySelectorAll("text")]
          .map((t) => ({ t: t.textContent, b: t.getBBox() }))
          .filter(({ b }) => b.x < 0 || b.y < 0 || b.x + b.width > w || b.y + b.height > h)
          .map(({ t, b }) => `${t} at x ${b.x.toFixed(0)}–${(b.x + b.width).toFixed(0)} of ${w}`);
      });
      outside.push(...bad.map((b) => `${file}: ${b}`));
    }
    await page.close();
    expect(outside).toEqual([]);
  });
});
