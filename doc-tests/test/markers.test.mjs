/**
 * Nothing is skipped silently: every shell block of the checked pages is marked runnable or not-runnable,
 * and a not-runnable block says why in words a reader would accept.
 */

import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { docFiles, parseBlocks, shellBlocks } from "../src/blocks.mjs";
import { FAKES } from "../src/session.mjs";

const ATTRIBUTES = new Set(["cwd", "kernel", "background", "timeout", "expect", "fake", "stop", "ready"]);

function isRegExp(text) {
  try {
    new RegExp(text);
    return true;
  } catch {
    return false;
  }
}

describe("shell block markers", () => {
  it.each(docFiles())("every shell block of %s is marked runnable or not-runnable with a reason", (file) => {
    const problems = [];
    for (const b of shellBlocks(file)) {
      const at = `${file}:${b.line}`;
      if (!b.marker) problems.push(`${at}: no <!-- runnable --> or <!-- not-runnable: reason --> above it`);
      else if (b.marker.kind === "not-runnable" && b.marker.reason.split(/\s+/).length < 3)
        problems.push(`${at}: not-runnable needs a reason of a few words, got "${b.marker.reason}"`);
      else if (b.marker.kind === "runnable") {
        for (const k of Object.keys(b.marker.attrs))
          if (!ATTRIBUTES.has(k)) problems.push(`${at}: unknown attribute ${k}`);
        const { cwd, kernel, timeout, fake } = b.marker.attrs;
        for (const k of ["expect", "ready"])
          if (typeof b.marker.attrs[k] === "string" && !isRegExp(b.marker.attrs[k]))
            problems.push(`${at}: ${k} is not a regular expression`);
        for (const name of fake === undefined ? [] : String(fake).split(","))
          if (!existsSync(join(FAKES, name)))
            problems.push(`${at}: fake=${name} is not a fake of the CLI tests`);
        if (cwd !== undefined && cwd !== "root" && cwd !== "empty") problems.push(`${at}: cwd=${cwd}`);
        if (kernel !== undefined && kernel !== "demo") problems.push(`${at}: kernel=${kernel}`);
        if (timeout !== undefined && !(Number(timeout) > 0)) problems.push(`${at}: timeout=${timeout}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("reads markers, attributes and include regions as documented", () => {
    const md = [
      '<!-- runnable cwd=empty timeout=5 expect="a b" background -->',
      "```sh",
      "echo a b",
      "```",
      "",
      "<!-- not-runnable: needs a real claude binary -->",
      "```bash",
      "claude",
      "```",
      "<!-- include: x.sh -->",
      "```bash",
      "echo included",
      "```",
      "<!-- /include -->",
      "```sh",
      "unmarked",
      "```",
    ].join("\n");
    const blocks = parseBlocks(md).filter((b) => b.shell && !b.included);
    expect(blocks.map((b) => [b.line, b.marker])).toEqual([
      [2, { kind: "runnable", attrs: { cwd: "empty", timeout: "5", expect: "a b", background: true } }],
      [7, { kind: "not-runnable", reason: "needs a real claude binary" }],
      [15, null],
    ]);
  });
});
