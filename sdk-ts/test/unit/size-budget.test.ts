/**
 * The size budget of the root export, measured the way a bundler would ship it: every file
 * statically reachable from dist/index.js (openapi-fetch included, the lazily imported validators
 * excluded), comments stripped by the TypeScript printer, indentation and blank lines removed, then
 * gzip -9. The budget and the reason for it are in README.md § Size.
 */
import { describe, expect, it } from "vitest";
import { measureRoot, ROOT_GZIP_BUDGET_BYTES } from "../helpers/size.js";

describe("root export size", () => {
  it(`stays under ${ROOT_GZIP_BUDGET_BYTES} bytes gzipped`, () => {
    const size = measureRoot();
    console.log(
      `root export: ${size.files.length} files, ${size.rawBytes} B raw, ${size.strippedBytes} B stripped, ${size.gzipBytes} B gzip`,
    );
    expect(size.gzipBytes).toBeLessThanOrEqual(ROOT_GZIP_BUDGET_BYTES);
  });

  it("does not pull the OpenTelemetry span code or @opentelemetry/api in statically", () => {
    const files = measureRoot().files;
    expect(files.some((f) => /spans\.js$/.test(f))).toBe(true);
    expect(files.some((f) => /otel-spans\.js$|@opentelemetry/.test(f))).toBe(false);
  });

  it("does not pull the generated validators in statically", () => {
    const files = measureRoot().files;
    expect(files.some((f) => /validators\.js$/.test(f))).toBe(false);
    expect(files.some((f) => f.includes("openapi-fetch"))).toBe(true);
  });
});
