/** Test helpers for the driver suite: scratch directories and typed reports. */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunReport } from "../../src/runner/results.js";

export const scratch = () => mkdtempSync(join(tmpdir(), "cap-conformance-driver-"));

export const readReport = (path: string) => JSON.parse(readFileSync(path, "utf8")) as RunReport;
