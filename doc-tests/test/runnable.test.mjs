/**
 * Docs are code: every shell block marked `<!-- runnable … -->` in README.md, docs/**\/*.md and the package
 * READMEs runs verbatim, page by page, against a fresh reference kernel where the page starts one.
 * A failure names the block's file:line, its exit code and the tail of its output.
 */
import { describe, expect, it } from "vitest";
import { docFiles, shellBlocks } from "../src/blocks.mjs";
import { runPage } from "../src/session.mjs";

const pages = docFiles()
  .map((file) => shellBlocks(file).filter((b) => b.marker?.kind === "runnable"))
  .filter((blocks) => blocks.length > 0);

describe.concurrent("runnable docs", () => {
  for (const blocks of pages) {
    const lines = blocks.map((b) => b.line).join(", ");
    it(`${blocks[0].file} runs verbatim (blocks at lines ${lines})`, async () => {
      const result = await runPage(blocks);
      expect(result.error ?? "").toBe("");
    });
  }
});
