/**
 * A TypeScript consumer of the installed SDK: `npm install @commonly/cap-sdk`, then `typescript` and
 * `@types/node` at the versions this repository pins, and `tsc` over one file that imports the root and
 * every typed subpath the installed package.json exports, once per `moduleResolution` a consumer may use —
 * `bundler`, `node16`, `nodenext` and the legacy `node` (node10, which ignores `exports` and finds subpaths
 * through `typesVersions` only). `skipLibCheck` is off, so a shipped .d.ts that does not resolve fails too.
 * The SDK's echo example (examples/echo-ts/src/echo.ts) is compiled the same way and becomes the driver
 * `cap-conformance driver` judges.
 *
 * Must never: type-check against anything but the installed tarball — the consumer lives in the scratch
 * project and TypeScript resolves from its node_modules only.
 */
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../workspace.mjs";
import { step } from "./steps.mjs";

export const MODES = {
  bundler: { module: "esnext", moduleResolution: "bundler" },
  node16: { module: "node16", moduleResolution: "node16" },
  nodenext: { module: "nodenext", moduleResolution: "nodenext" },
  node: { module: "esnext", moduleResolution: "node" },
};

const pinned = (name) => {
  const root = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
  return `${name}@${root.devDependencies[name]}`;
};

/** The import specifiers of the installed package whose exports carry types. */
export function typedSpecifiers(project, name) {
  const json = JSON.parse(readFileSync(join(project.dir, "node_modules", name, "package.json"), "utf8"));
  return Object.entries(json.exports)
    .filter(([, target]) => typeof target === "object" && target.types)
    .map(([sub]) => (sub === "." ? name : `${name}/${sub.slice(2)}`));
}

const consumer = (specifiers) =>
  [
    "// Written by release/smoke/typescript.mjs: every typed entry point of the installed SDK.",
    `import { CapClient, runDriver, type DriverSummary } from "@commonly/cap-sdk";`,
    ...specifiers.map((s, i) => `import * as entry${i} from "${s}";`),
    "",
    `const client = new CapClient({ baseUrl: "http://127.0.0.1:7070", token: "cm_agent_x" });`,
    "export const start = (): Promise<DriverSummary> => runDriver({ client, handle: {} });",
    ...specifiers.map((_, i) => `export type Entry${i} = typeof entry${i};`),
    "",
  ].join("\n");

function tsconfig(mode, files, extra = {}) {
  return {
    compilerOptions: {
      ...MODES[mode],
      target: "es2022",
      lib: ["es2022"],
      types: ["node"],
      strict: true,
      skipLibCheck: false,
      noEmit: true,
      ...extra,
    },
    files,
  };
}

/** Installs the compiler beside the SDK and writes the consumer files; resolves the specifiers checked. */
export async function prepareConsumer(ctx, project) {
  await step(
    `Node ${ctx.node}: npm install typescript and @types/node (the repository's pins)`,
    "npm",
    ["install", "--save-dev", "--no-audit", "--no-fund", pinned("typescript"), pinned("@types/node")],
    { cwd: project.dir, env: ctx.env },
  );
  const specifiers = typedSpecifiers(project, "@commonly/cap-sdk");
  writeFileSync(join(project.dir, "consumer.ts"), consumer(specifiers));
  // A subpath nobody exports: the check that proves tsc can fail in the mode that resolves most loosely.
  writeFileSync(
    join(project.dir, "missing.ts"),
    `import * as nope from "@commonly/cap-sdk/nope";\nexport type T = typeof nope;\n`,
  );
  copyFileSync(join(ROOT, "examples", "echo-ts", "src", "echo.ts"), join(project.dir, "echo.ts"));
  for (const mode of Object.keys(MODES))
    writeFileSync(
      join(project.dir, `tsconfig.${mode}.json`),
      JSON.stringify(tsconfig(mode, ["consumer.ts"]), null, 2),
    );
  writeFileSync(
    join(project.dir, "tsconfig.missing.json"),
    JSON.stringify(tsconfig("node", ["missing.ts"]), null, 2),
  );
  writeFileSync(
    join(project.dir, "tsconfig.echo.json"),
    JSON.stringify(tsconfig("nodenext", ["echo.ts"], { noEmit: false, outDir: "out" }), null, 2),
  );
  return specifiers;
}

/** `npx tsc -p tsconfig.<name>.json`; resolves `{code, output}` (a failing check is the caller's to judge). */
export async function tsc(ctx, project, name) {
  const r = await step(
    `Node ${ctx.node}: tsc -p tsconfig.${name}.json`,
    "npx",
    ["tsc", "-p", `tsconfig.${name}.json`],
    {
      cwd: project.dir,
      env: ctx.env,
      expect: null,
    },
  );
  return { code: r.code, output: r.output };
}
