// This package's imports run one way: no import circle (type-only imports count), no import from a layer
// above, every module in a layer. The layer order is written, with its reasons, in scripts/layers.mjs.
import { expect, it } from "vitest";
import { layerViolations } from "../../scripts/layers.mjs";

it("imports only down its layer order, with no circle and no module outside the order", async () => {
  expect(await layerViolations("conformance")).toEqual([]);
});
