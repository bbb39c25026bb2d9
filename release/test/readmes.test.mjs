/**
 * The READMEs npm and PyPI show: each starts with installing from the registry (the monorepo comes second),
 * and every link works off GitHub — a relative link on a registry page is dead, so links are absolute, and
 * an absolute link into this repository must name a file or folder that exists.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PYTHON_PACKAGE, publishedPackages, REPOSITORY, ROOT } from "../workspace.mjs";

/** The command each README's first code block must hold: how a stranger gets the package. */
const INSTALL = {
  "@commonly/cap-spec": "npm install @commonly/cap-spec",
  "@commonly/cap-sdk": "npm install @commonly/cap-sdk",
  "@commonly/cap-kernel": "npx @commonly/cap-kernel serve",
  "@commonly/cap-conformance": "npx @commonly/cap-conformance run",
  "@commonly/cli": "npm install -g @commonly/cli",
  "@commonly/cap-console": "npm install @commonly/cap-console",
  [PYTHON_PACKAGE.name]: "pip install commonly-cap",
};
const readmes = [...publishedPackages(), PYTHON_PACKAGE].map(({ dir, name }) => [
  `${dir}/README.md`,
  name,
  readFileSync(join(ROOT, dir, "README.md"), "utf8"),
]);

/** The markdown without code: fenced blocks and inline code spans hold examples, not links. */
const prose = (md) => md.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1\s*$/gm, "").replace(/`[^`\n]*`/g, "");

/** Every link target: inline links and images, reference definitions, and HTML href/src. */
function linkTargets(md) {
  const text = prose(md);
  return [
    ...[...text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]),
    ...[...text.matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((m) => m[1]),
    ...[...text.matchAll(/\b(?:href|src)\s*=\s*"([^"]+)"/g)].map((m) => m[1]),
  ];
}
const isAbsolute = (target) => /^(https?:|mailto:)/.test(target) || target.startsWith("#");

describe.each(readmes)("%s", (_file, name, md) => {
  it("starts with installing the package from its registry", () => {
    const firstBlock = /^```[^\n]*\n([\s\S]*?)^```/m.exec(md)?.[1] ?? "";
    expect(firstBlock).toContain(INSTALL[name]);
    const install = md.indexOf("## Install");
    expect(install, "an ## Install section").toBeGreaterThan(0);
    expect(md.slice(0, install).match(/^## /gm), "## Install is the first section").toBeNull();
  });

  it("has no relative link (npm and PyPI cannot follow one)", () => {
    expect(linkTargets(md).filter((t) => !isAbsolute(t))).toEqual([]);
  });

  it("links only to files and folders this repository has", () => {
    const prefix = `${REPOSITORY}/`;
    const dead = [];
    for (const target of linkTargets(md).filter((t) => t.startsWith(prefix))) {
      const m = /^(blob|tree)\/main\/([^#?]+)/.exec(target.slice(prefix.length));
      if (!m) continue; // the repository's home, issues, pulls
      const path = join(ROOT, decodeURIComponent(m[2]));
      const ok =
        existsSync(path) && (m[1] === "tree" ? statSync(path).isDirectory() : statSync(path).isFile());
      if (!ok) dead.push(target);
    }
    expect(dead).toEqual([]);
  });
});

describe("the link finder", () => {
  it("finds relative links in prose and leaves code alone", () => {
    const md = [
      "See [the spec](../docs/CAP.md), ![logo](img/logo.png) and [home](https://example.org).",
      "[ref]: ./notes.md",
      '<a href="guide.md">guide</a>',
      "`[not a link](x.md)`",
      "```md",
      "[also not](y.md)",
      "```",
    ].join("\n");
    expect(linkTargets(md).filter((t) => !isAbsolute(t))).toEqual([
      "../docs/CAP.md",
      "img/logo.png",
      "./notes.md",
      "guide.md",
    ]);
  });
});
