// The layer check of scripts/layers.mjs (run by every package's test/layers.test.ts) can fail: fed a
// small fixture with a type-only import circle, an upward import and a module outside the order, it
// reports each of them, and nothing once the order allows what the fixture does.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkLayers } from "../../../scripts/layers.mjs";

const fixture = join(import.meta.dirname, "fixture");
const layers = [
  { name: "top", path: "^src/top\\.ts$" },
  { name: "middle", path: "^src/(a|b)\\.ts$" },
  { name: "bottom", path: "^src/bottom\\.ts$" },
];

describe("the layer check", () => {
  it("reports a type-only import circle, an upward import and a module outside the order", async () => {
    expect(await checkLayers(fixture, { roots: ["src"], layers })).toEqual([
      "no-circular: src/a.ts → src/b.ts → src/a.ts",
      "upward:bottom: src/bottom.ts → src/top.ts",
      "unlayered: src/stray.ts",
    ]);
  });

  it("reports only the circle once the order puts every module below what it imports", async () => {
    const found = await checkLayers(fixture, {
      roots: ["src"],
      layers: [
        { name: "bottom-first", path: "^src/bottom\\.ts$" },
        { name: "rest", path: "^src/(top|stray|a|b)\\.ts$" },
      ],
    });
    // No layer order makes a circle run one way: only moving a module breaks it.
    expect(found).toEqual(["no-circular: src/a.ts → src/b.ts → src/a.ts"]);
  });
});
