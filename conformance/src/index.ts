/**
 * `@commonly/cap-conformance` as a library: run the suite programmatically (the CLI is a thin layer over
 * this) and read the checks. Everything else is internal.
 */
export type { Check, Family } from "./check.js";
export { allChecks } from "./checks/index.js";
export { main } from "./cli.js";
export type { Fixture } from "./config/fixture.js";
export { parseFixture } from "./config/fixture.js";
export type { Flags, Settings } from "./config/settings.js";
export { resolveSettings } from "./config/settings.js";
export type { Feature } from "./features.js";
export type { Manifest, Requirement } from "./requirements.js";
export { loadManifest } from "./requirements.js";
export type { CheckResult, FailureReport, RequirementResult, RunReport, Summary } from "./runner/results.js";
export type { RunHooks, SuiteInput } from "./runner/run-suite.js";
export { runSuite } from "./runner/run-suite.js";
