import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import * as api from "../src/index.js";

describe("package root", () => {
  it("exports the adapter contract and nothing else", () => {
    expect(Object.keys(api).sort()).toEqual([
      "ADAPTER_NAMES",
      "AdapterError",
      "DEFAULT_TIMEOUT_MS",
      "classifyFailure",
      "createCmdAdapter",
      "getAdapter",
      "isAdapterError",
    ]);
    expect(api.DEFAULT_TIMEOUT_MS).toBe(300_000);
  });

  it("drives a script through the cmd adapter end to end", async () => {
    const bot = api.getAdapter("cmd", { command: process.execPath, args: ["-e", "console.log('pong')"] });
    const r = await bot.spawn("ping", {
      sessionId: null,
      cwd: process.cwd(),
      env: process.env,
      memoryLongTerm: "",
      metadata: {},
      timeoutMs: 10_000,
    });
    expect(r.text).toBe("pong");
  });
});

describe("README example", () => {
  it("runs as written (with the package import pointed at src)", async () => {
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
    const code = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(code).toBeDefined();
    const dir = mkdtempSync(join(tmpdir(), "readme-"));
    try {
      const file = join(dir, "example.mjs");
      const dist = pathToFileURL(join(fileURLToPath(new URL("..", import.meta.url)), "src", "index.ts")).href;
      writeFileSync(file, code!.replace('from "@commonly/cli"', `from ${JSON.stringify(dist)}`));
      // Run through vitest's own module loader, which understands the TypeScript sources.
      const lines: string[] = [];
      const log = console.log;
      console.log = (...args: unknown[]) => lines.push(args.join(" "));
      try {
        await import(/* @vite-ignore */ pathToFileURL(file).href);
      } finally {
        console.log = log;
      }
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^\s*\d+ [0-9a-f-]{36}$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
