import { defineConfig } from "vitest/config";

// Two projects: `release` (metadata, changesets, READMEs, workflow lint: seconds) and `installed` (the
// pack-and-install smoke and the example workflows, run against a scratch registry made once by
// smoke/global-setup.mjs: minutes). `vitest run --project release` runs the quick ones alone.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "release",
          include: ["test/*.test.mjs"],
          testTimeout: 60_000,
        },
      },
      {
        test: {
          name: "installed",
          include: ["test/installed/*.test.mjs"],
          globalSetup: ["smoke/global-setup.mjs"],
          // Installs compile a native module on a cold cache, and conformance runs take half a minute each.
          testTimeout: 900_000,
          hookTimeout: 900_000,
          // Two files at a time (one process each): the Node majors' smokes and the workflows mostly wait on
          // installs and conformance runs, and this machine has two cores.
          maxWorkers: 2,
          // After the quick project (a project with its own maxWorkers runs as a group of its own).
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
