import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    // The kernel serves the console (it depends on this package), so the console cannot depend back on the
    // kernel: its browser tests reach the kernel's testing kit, built first (turbo.json), by this alias.
    alias: {
      "@commonly/cap-kernel/testing": fileURLToPath(
        new URL("../reference-server/dist/testing/index.js", import.meta.url),
      ),
    },
  },
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 90_000,
    // Browser tests start a kernel and Chromium; one file at a time on these two-core machines.
    fileParallelism: false,
  },
});
