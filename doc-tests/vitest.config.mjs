import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.mjs"],
    testTimeout: 240_000,
    hookTimeout: 60_000,
  },
});
