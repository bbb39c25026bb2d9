import { type TestKernel } from "./test-kernel.js";
/**
 * The kernel's CLI: `CAP_KERNEL_BIN`, else the `bin.js` built beside this module (dist/testing → dist/),
 * or, when the kit runs from source (the kernel's own tests), the package's dist/bin.js.
 */
export declare function kernelBin(): string;
/** Why a test that needs the built kernel cannot run here, or undefined when it can. */
export declare function kernelMissing(): string | undefined;
/** Runs `cap-kernel <args>` to completion; resolves with stdout, rejects with stderr on failure. */
export declare function kernelCli(args: string[], env?: NodeJS.ProcessEnv): Promise<string>;
export interface StartKernelOptions {
    /** Agent names to install in the pod, each with a runtime token (default none). */
    agents?: string[];
    /** Agents woken by every human message (`message.posted`); the others only by mentions (default all). */
    listeners?: string[];
    /** Pod and admin human names (default `lab`, `lily`). */
    pod?: string;
    human?: string;
    /** false: provision nothing (e.g. the conformance fixture provisions itself). Default true. */
    provision?: boolean;
    /** A `--db` URL; default a fresh SQLite file in a temporary directory. */
    db?: string;
    leaseSeconds?: number;
    maxAttempts?: number;
    /** The wire profile (`cap-kernel serve --profile`: `cap`, the default, or `production`). */
    profile?: string;
    /** Extra environment for the kernel process. */
    env?: NodeJS.ProcessEnv;
}
/** Provisions (a fresh SQLite file unless `db` is given) and serves the kernel as a child process. */
export declare function startKernel(options?: StartKernelOptions): Promise<TestKernel>;
/** The same kernel as a library in this process (default store `sqlite::memory:`), listening on a free port. */
export declare function startKernelInProcess(options?: StartKernelOptions): Promise<TestKernel>;
/**
 * `cap-kernel provision --for-conformance` on the kernel's database: the fixture the conformance suite
 * reads, written to a temporary file. Returns its path and JSON.
 */
export declare function provisionConformance(o: {
    db: string;
    baseUrl: string;
    leaseSeconds?: number;
    maxAttempts?: number;
}): Promise<{
    path: string;
    fixture: Record<string, unknown>;
}>;
/** A fresh SQLite file URL (`sqlite:…/kernel.db`) in a temporary directory, for kernels sharing one file. */
export declare const freshSqliteUrl: () => string;
