/** The kernel package's version, read from its own package.json, for `cap-kernel --version`. */
import { readFileSync } from "node:fs";

export function kernelVersion(): string {
  // dist/cli/version.js and src/cli/version.ts both sit two levels below the package root.
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
    version: string;
  };
  return pkg.version;
}
