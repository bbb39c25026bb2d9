import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type * as source from "../../src/errors.js";
import { CapHttpError, CapSdkError, SDK_ERROR_CODES } from "../../src/errors.js";

// The built copy, loaded by URL so type-checking does not need a build.
const dist: typeof source = await import(new URL("../../dist/errors.js", import.meta.url).href);

describe("error brands", () => {
  // Two copies of the module (the built one and the source one) stand in for two bundles.
  it("makes instanceof work across two copies of the SDK", () => {
    const fromOtherCopy = new dist.CapHttpError({ status: 409, code: "lease_lost", operation: "POST /x" });
    expect(dist.CapHttpError).not.toBe(CapHttpError);
    expect(fromOtherCopy).toBeInstanceOf(CapHttpError);
    expect(new dist.CapSdkError("timeout", "slow")).toBeInstanceOf(CapSdkError);
  });

  it("keeps the two kinds apart", () => {
    const http = new CapHttpError({ status: 503, operation: "GET /events" });
    const local = new CapSdkError("network", "refused");
    expect(http).not.toBeInstanceOf(CapSdkError);
    expect(local).not.toBeInstanceOf(CapHttpError);
    expect(http).toBeInstanceOf(Error);
    expect({ name: http.name, code: http.code }).toEqual({ name: "CapHttpError", code: "http_503" });
    expect(local.name).toBe("CapSdkError");
  });

  it("does not claim look-alikes without the brand", () => {
    expect({ status: 500, code: "x" }).not.toBeInstanceOf(CapHttpError);
    expect(null).not.toBeInstanceOf(CapSdkError);
    expect(Object.assign(new Error("x"), { code: "timeout" })).not.toBeInstanceOf(CapSdkError);
  });
});

describe("the CapSdkError registry", () => {
  it("matches the README's table, code for code and word for word", () => {
    const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
    const table = readme.split("<!-- sdk-error-codes")[1]!.split("\n\n")[0]!;
    const rows = [...table.matchAll(/^\| `([a-z_]+)` +\| (.+?) +\|$/gm)].map((m) => [m[1], m[2]]);
    expect(rows).toEqual(Object.entries(SDK_ERROR_CODES));
  });
});
