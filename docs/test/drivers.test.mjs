/**
 * docs/drivers.md, "CAP for driver authors", stays one page and stays true to the normative sources: every
 * requirement it cites exists and links to the CAP.md section that states it, every driver obligation of the
 * manifest is cited, and its routes and error codes are the OpenAPI's and the registry's.
 * Its shell blocks are run by doc-tests (the runnable-docs harness); this file only reads.
 */
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { slugify } from "../build/markdown.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const page = readFileSync(join(root, "docs", "drivers.md"), "utf8");
const cap = readFileSync(join(root, "docs", "CAP.md"), "utf8");
const manifest = parse(readFileSync(join(root, "spec", "requirements.yaml"), "utf8"));
const requirements = Array.isArray(manifest) ? manifest : manifest.requirements;
const errors = parse(readFileSync(join(root, "spec", "errors.yaml"), "utf8"));
const openapi = parse(readFileSync(join(root, "spec", "generated", "cap-v1.openapi.yaml"), "utf8"));
const BASE = "/api/agents/runtime";

const byId = new Map(requirements.map((r) => [r.id, r]));
const capSlugs = new Set([...cap.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slugify(m[1])));
const cited = [...page.matchAll(/\[(CAP-[A-Z]+-\d+)\]\(CAP\.md#([^)]+)\)/g)].map((m) => ({
  id: m[1],
  slug: m[2],
}));

describe("docs/drivers.md", () => {
  it("fits on one page (at most 200 lines)", () => {
    expect(page.trimEnd().split("\n").length).toBeLessThanOrEqual(200);
  });

  it("links each requirement it cites to the CAP.md section that states it", () => {
    expect(cited.length).toBeGreaterThan(0);
    const wrong = cited
      .map(({ id, slug }) => ({
        id,
        slug,
        want: byId.has(id) ? slugify(byId.get(id).section) : "(unknown id)",
      }))
      .filter(({ slug, want }) => slug !== want);
    expect(wrong).toEqual([]);
  });

  it("cites every requirement whose subject is a driver", () => {
    const drivers = requirements.filter((r) => r.subject === "driver").map((r) => r.id);
    const ids = new Set(cited.map((c) => c.id));
    expect(drivers.filter((id) => !ids.has(id))).toEqual([]);
  });

  it("links only to CAP.md headings that exist", () => {
    const slugs = [...page.matchAll(/\]\(CAP\.md#([^)]+)\)/g)].map((m) => m[1]);
    expect(slugs.filter((s) => !capSlugs.has(s))).toEqual([]);
  });

  it("lists the six core routes, each a CAP operation", () => {
    const table = page.slice(page.indexOf("## The routes"), page.indexOf("## An event"));
    const routes = [...table.matchAll(/^\| `(GET|PUT|POST|DELETE) ([^`]+)`/gm)].map((m) => [m[1], m[2]]);
    expect(routes).toHaveLength(6);
    for (const [method, path] of routes) {
      expect(openapi.paths[BASE + path]?.[method.toLowerCase()], `${method} ${path}`).toBeTruthy();
    }
  });

  it("gives each error code the status the registry gives it", () => {
    const table = page.slice(page.indexOf("## Errors to handle"), page.indexOf("## Read next"));
    const status = new Map(errors.filter((e) => e.surface === "cap").map((e) => [e.code, e.status]));
    const rows = [...table.matchAll(/^\| (\d{3}|5xx) +\| ([^|]+)\|/gm)];
    expect(rows.length).toBeGreaterThan(5);
    const wrong = [];
    for (const [, want, codes] of rows) {
      for (const [, code] of codes.matchAll(/`([a-z_]+)`/g)) {
        const got = status.get(code);
        const ok = want === "5xx" ? got >= 500 && got < 600 : got === Number(want);
        if (!ok) wrong.push(`${code}: page ${want}, registry ${got ?? "none"}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
