/**
 * Conformance as data: every check cites requirement ids that exist, every black-box-testable kernel MUST
 * is verified by at least one check, and a requirement that depends on an optional feature is verified by
 * a check gated on that feature (or by a run-wide aggregate).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { families } from "../src/check.js";
import { allChecks } from "../src/checks/index.js";
import { driverFamilies } from "../src/driver/check.js";
import { driverChecks } from "../src/driver/scenarios/index.js";
import { features } from "../src/features.js";
import { loadManifest } from "../src/requirements.js";

const manifest = await loadManifest();

describe("the checks and the requirements manifest", () => {
  it("cite only requirement ids the manifest defines", () => {
    const unknown = allChecks.flatMap((c) =>
      c.verifies.filter((id) => !manifest.byId.has(id)).map((id) => `${c.id}: ${id}`),
    );
    expect(unknown).toEqual([]);
  });

  it("verify every black-box-testable kernel MUST", () => {
    const verified = new Set(allChecks.flatMap((c) => c.verifies));
    const missing = manifest.requirements
      .filter((r) => r.level === "MUST" && r.subject === "kernel" && r.testable && !verified.has(r.id))
      .map((r) => r.id);
    expect(missing).toEqual([]);
  });

  it("gate each feature-dependent requirement behind its feature", () => {
    const wrong = allChecks.flatMap((c) =>
      c.verifies
        .map((id) => manifest.byId.get(id))
        .filter((r) => r?.feature && r.feature !== c.feature && !c.last && r.feature !== "info")
        .map((r) => `${c.id} verifies ${r?.id} (feature ${r?.feature}) without being gated on it`),
    );
    expect(wrong).toEqual([]);
  });

  it("name checks <family>.<kebab-case>, uniquely, each in a known family", () => {
    const ids = allChecks.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const c of allChecks) {
      expect(c.id).toMatch(/^[a-z-]+\.[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(families).toContain(c.family);
      expect(c.id.startsWith(`${c.family}.`)).toBe(true);
      expect(c.verifies.length).toBeGreaterThan(0);
    }
  });

  it("have at least one check in every family the issue lists", () => {
    const present = new Set(allChecks.map((c) => c.family));
    expect(families.filter((f) => !present.has(f))).toEqual([]);
  });
});

describe("the driver checks and the requirements manifest", () => {
  it("cite only driver requirement ids the manifest defines", () => {
    const wrong = driverChecks.flatMap((c) =>
      c.verifies
        .filter((id) => manifest.byId.get(id)?.subject !== "driver")
        .map((id) => `${c.id}: ${id} (${manifest.byId.get(id)?.subject ?? "unknown"})`),
    );
    expect(wrong).toEqual([]);
  });

  it("verify every black-box-testable driver MUST, and every testable driver SHOULD", () => {
    const verified = new Set(driverChecks.flatMap((c) => c.verifies));
    const missing = manifest.requirements
      .filter((r) => r.subject === "driver" && r.testable && !verified.has(r.id))
      .map((r) => `${r.id} ${r.level}`);
    expect(missing).toEqual([]);
  });

  it("leave untested only the driver requirements marked not testable", () => {
    const verified = new Set(driverChecks.flatMap((c) => c.verifies));
    const untestable = manifest.requirements.filter((r) => r.subject === "driver" && !r.testable);
    expect(untestable.map((r) => r.id)).toEqual(["CAP-EVT-9"]);
    expect(untestable.filter((r) => verified.has(r.id))).toEqual([]);
  });

  it("name checks driver.<family>.<kebab-case>, uniquely, each in a known family", () => {
    const ids = driverChecks.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const c of driverChecks) {
      expect(c.id).toMatch(/^driver\.[a-z]+\.[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(driverFamilies).toContain(c.family);
      expect(c.id.startsWith(`driver.${c.family}.`)).toBe(true);
    }
    expect(driverFamilies.filter((f) => !driverChecks.some((c) => c.family === f))).toEqual([]);
  });
});

describe("the published report schema", () => {
  it("names every feature the spec defines, so a report of a kernel advertising it validates", () => {
    const schema = JSON.parse(
      readFileSync(join(import.meta.dirname, "..", "schema", "report-v1.schema.json"), "utf8"),
    ) as { $defs: { feature: { enum: string[] } } };
    expect([...schema.$defs.feature.enum].sort()).toEqual([...features].sort());
  });
});
