/**
 * Links work on GitHub too: every relative link in every committed markdown file points at a file of the
 * repository, and a `#fragment` into a markdown file at one of its headings.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../src/blocks.mjs";
import { anchors, relativeLinks } from "../src/links.mjs";

const files = execFileSync("git", ["ls-files", "*.md"], { cwd: ROOT, encoding: "utf8" })
  .split("\n")
  .filter((f) => f && existsSync(join(ROOT, f)));

describe("relative links", () => {
  it.each(files)("every relative link in %s resolves to a file of the repository", (file) => {
    const text = readFileSync(join(ROOT, file), "utf8");
    const broken = [];
    for (const { href, line } of relativeLinks(text)) {
      const [path, fragment] = href.split("#");
      const target = path ? resolve(dirname(join(ROOT, file)), decodeURIComponent(path)) : join(ROOT, file);
      const at = `${file}:${line}: ${href}`;
      if (relative(ROOT, target).startsWith("..")) broken.push(`${at} leaves the repository`);
      else if (!existsSync(target)) broken.push(`${at} does not exist`);
      else if (fragment && target.endsWith(".md") && statSync(target).isFile()) {
        if (!anchors(readFileSync(target, "utf8")).has(fragment))
          broken.push(`${at}: no heading #${fragment}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("finds links outside code and gives headings GitHub's anchors", () => {
    const md =
      '# A b\n[x](a.md#a-b) `[no](b.md)`\n```\n[no](c.md)\n```\n<a href="d.md">d</a> [w](https://x.y)\n## A b';
    expect(relativeLinks(md)).toEqual([
      { href: "a.md#a-b", line: 2 },
      { href: "d.md", line: 6 },
    ]);
    expect([...anchors(md)]).toEqual(["a-b", "a-b-1"]);
  });
});
