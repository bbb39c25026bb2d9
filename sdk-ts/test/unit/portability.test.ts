import { execFileSync } from "node:child_process";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { staticGraph } from "../helpers/module-graph.js";

const dist = resolve(import.meta.dirname, "..", "..", "dist");

describe("the root export is portable", () => {
  it("reaches no Node built-in and no package but openapi-fetch through static imports", () => {
    const files = staticGraph(resolve(dist, "index.js"));
    const external = files.flatMap((f) => f.imports.filter((s) => !s.startsWith(".")));
    expect([...new Set(external)]).toEqual(["openapi-fetch"]);
    for (const f of files) expect(f.code).not.toMatch(/\brequire\(|\bprocess\.env\b|\bBuffer\./);
  });

  it("keeps the Node-only store out of the root and in ./node", () => {
    const root = staticGraph(resolve(dist, "index.js")).map((f) => f.path);
    expect(root.some((p) => p.includes("json-file-store"))).toBe(false);
    const node = staticGraph(resolve(dist, "node.js")).flatMap((f) => f.imports);
    expect(node).toContain("node:fs");
  });

  it("runs a driver in a vm context with only web-platform globals", () => {
    const out = execFileSync(
      process.execPath,
      [
        "--experimental-vm-modules",
        "--no-warnings",
        resolve(import.meta.dirname, "../helpers/vm-portability.mjs"),
        resolve(dist, "index.js"),
      ],
      { encoding: "utf8", timeout: 20_000 },
    );
    const result = JSON.parse(out);
    expect(result).toMatchObject({
      hasProcess: false,
      hasBuffer: false,
      brand: true,
      acks: [{ outcome: "posted", messageId: "m1" }],
      summary: { handled: 1 },
    });
    expect(result.seen).toContain("POST /api/agents/runtime/pods/p/messages");
  });
});
