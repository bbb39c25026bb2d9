import { defineConfig } from "vitest/config";
import { BaseSequencer } from "vitest/node";

/**
 * The installed project's files in a fixed order — node20, node22, node24, then the example workflows —
 * so that on a cold cache the workflows (which install the kernel on this process's Node) start after the
 * node20 file has compiled better-sqlite3 for that Node once and kept it, instead of compiling it again
 * beside it.
 */
class InstalledLast extends BaseSequencer {
  async sort(files) {
    const rank = (f) => {
      if (f.project.name !== "installed") return -1;
      const node = /node(\d+)\.test\.mjs$/.exec(f.moduleId);
      return node ? Number(node[1]) : 1000;
    };
    const sorted = await super.sort(files);
    return sorted
      .map((f, i) => ({ f, i }))
      .sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i)
      .map(({ f }) => f);
  }
}

// Two projects: `release` (metadata, changesets, READMEs, workflow lint: seconds) and `installed` (the
// pack-and-install smoke and the example workflows, run against a scratch registry made once by
// smoke/global-setup.mjs: minutes). `vitest run --project release` runs the quick ones alone.
export default defineConfig({
  test: {
    sequence: { sequencer: InstalledLast },
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
