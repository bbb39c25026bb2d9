import { defineConfig } from "vitest/config";

// Suite runs against real kernels measure time (leases, long-polls): one test file at a time keeps the two
// cores for the kernel under test instead of a second suite run.
export default defineConfig({
  test: {
    fileParallelism: false,
    // describe.concurrent blocks (the shipped drivers) run two driver-suite runs at a time at most.
    maxConcurrency: 2,
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 180_000,
    hookTimeout: 60_000,
  },
});
