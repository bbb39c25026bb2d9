import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A throwaway COMMONLY_HOME. */
export function tempHome(): { home: string; cleanup(): void } {
  const home = mkdtempSync(join(tmpdir(), "commonly-home-"));
  return { home, cleanup: () => rmSync(home, { recursive: true, force: true }) };
}
