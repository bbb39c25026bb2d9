/** The kernel package's version, read from its own package.json, for `cap-kernel --version` and the `/` page. */
import { readFileSync } from "node:fs";

export function kernelVersion(): string {
  // dist/version.js and src/version.ts both sit one level below the package root.
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
    version: string;
  };
  return pkg.version;
}
