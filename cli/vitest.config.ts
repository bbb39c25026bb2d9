import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Adapter tests start real processes; on a loaded 2-core CI machine one can take seconds.
    testTimeout: 20_000,
  },
});
