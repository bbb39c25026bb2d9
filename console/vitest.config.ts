import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 90_000,
    // Browser tests start a kernel and Chromium; one file at a time on these two-core machines.
    fileParallelism: false,
  },
});
