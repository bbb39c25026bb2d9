/**
 * Loads the reference kernel that `cap-conformance driver` plays, on first use. `@commonly/cap-kernel` is an
 * optional peer dependency of the suite: `cap-conformance run` tests someone else's kernel and installs
 * without it (no native module, no store drivers); `driver` needs it in-process, and when it is missing
 * says which package to install and how, as a configuration error (exit 2).
 *
 * Must never: import the kernel at module load — `run`, `list` and `--help` must work where it is absent —
 * or hide a failure of an installed kernel (a broken native build) behind the "not installed" message.
 */
import type * as KernelModule from "@commonly/cap-kernel";
import { ConfigError } from "../config/errors.js";

export const KERNEL_PACKAGE = "@commonly/cap-kernel";

export type ReferenceKernel = typeof KernelModule;

/** What to tell someone whose install has no kernel: the two ways to get one beside the suite. */
export function kernelMissingMessage(specifier = KERNEL_PACKAGE): string {
  return [
    `cap-conformance driver plays the kernel with the reference kernel, ${specifier}, which is not installed.`,
    "It is an optional peer dependency (cap-conformance run does not need it). Install it beside the suite:",
    `  npm install --save-dev ${specifier} @commonly/cap-conformance`,
    "or, without a project:",
    `  npx -p @commonly/cap-conformance -p ${specifier} cap-conformance driver …`,
  ].join("\n");
}

/** True when `err` says `specifier` itself cannot be found (not one of its own dependencies). */
function isMissing(err: unknown, specifier: string): boolean {
  const e = err as { code?: string; message?: string };
  if (e?.code !== "ERR_MODULE_NOT_FOUND") return false;
  // Node: "Cannot find package '@commonly/cap-kernel' imported from …" (or "Cannot find module '…'").
  return new RegExp(
    `Cannot find (package|module) '${specifier.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}'`,
  ).test(e.message ?? "");
}

/** `import(specifier)`, with a missing package turned into a ConfigError naming what to install. */
export async function loadReferenceKernel(specifier = KERNEL_PACKAGE): Promise<ReferenceKernel> {
  try {
    return (await import(specifier)) as ReferenceKernel;
  } catch (err) {
    if (isMissing(err, specifier)) throw new ConfigError(kernelMissingMessage(specifier));
    throw err;
  }
}
