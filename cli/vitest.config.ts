import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Builds cli/dist (and the kernel and SDK when missing) for the end-to-end tests.
    globalSetup: ["test/helpers/global-setup.ts"],
    // Adapter and end-to-end tests start real processes; on a loaded 2-core CI machine one can take seconds.
    testTimeout: 60_000,
    hookTimeout: 90_000,
  },
});
