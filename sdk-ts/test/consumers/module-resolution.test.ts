/**
 * A TypeScript project outside the workspace imports the root and every typed subpath export of
 * `@commonly/cap-sdk`, `@commonly/cap-spec` and `@commonly/cap-kernel` (its `./testing` kit included) and
 * the roots of the console, the conformance suite and the CLI, and
 * type-checks under each `moduleResolution` a consumer may use: `bundler`, `node16`, `nodenext` and the
 * legacy `node` (node10), which ignores `exports` and finds subpaths through `typesVersions` only.
 *
 * The packages are what npm would ship: `pnpm pack` (scripts off: turbo built dist/ before the tests),
 * unpacked into the consumer's node_modules; their dependencies are linked from the workspace, as an
 * install would place them. `skipLibCheck` is off, so a shipped .d.ts naming a module the consumer cannot
 * resolve fails too. Every subpath comes from the packages' `exports`, so a new one is checked unasked.
 */
import { execFile, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "..", "..", "..");
/** The packages a consumer imports, by their folder in the workspace. */
const PACKAGES = {
  "@commonly/cap-sdk": "sdk-ts",
  "@commonly/cap-spec": "spec",
  "@commonly/cap-kernel": "reference-server",
  "@commonly/cap-console": "console",
  "@commonly/cap-conformance": "conformance",
  "@commonly/cli": "cli",
};

interface Manifest {
  name: string;
  exports: Record<string, string | { types?: string }>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}
const manifest = (dir: string): Manifest => JSON.parse(readFileSync(join(ROOT, dir, "package.json"), "utf8"));

/** Every import specifier a TypeScript consumer can use: the exports that carry types. */
function typedSpecifiers(m: Manifest): string[] {
  return Object.entries(m.exports)
    .filter(([, target]) => typeof target === "object" && target.types)
    .map(([sub]) => (sub === "." ? m.name : `${m.name}/${sub.slice(2)}`));
}

const specifiers = Object.values(PACKAGES).flatMap((dir) => typedSpecifiers(manifest(dir)));

/** The modes, each with the `module` it goes with and whether the consumer is an ES module. */
const MODES = [
  { resolution: "bundler", module: "esnext", esm: true },
  { resolution: "node16", module: "node16", esm: true },
  { resolution: "nodenext", module: "nodenext", esm: true },
  { resolution: "node", module: "commonjs", esm: false },
] as const;

function pnpm(): [string, string[]] {
  const pinned = (
    JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { packageManager: string }
  ).packageManager.split("@")[1]!;
  const probe = spawnSync("pnpm", ["--version"], { encoding: "utf8" });
  return probe.status === 0 && probe.stdout.trim() === pinned
    ? ["pnpm", []]
    : ["npx", ["-y", `pnpm@${pinned}`]];
}

const scratch = mkdtempSync(join(tmpdir(), "cap-ts-consumers-"));
const checked = new Map<string, { code: number; output: string }>();
const modules = join(scratch, "node_modules");

/** The folder Node would load `name` from for a module in `fromDir` (the nearest node_modules/name). */
function packageDir(name: string, fromDir: string): string | undefined {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return realpathSync(candidate);
    if (dirname(dir) === dir) return undefined;
  }
}

/** Links `name` into the consumer's node_modules from where `fromDir` finds it, once. */
function link(name: string, fromDir: string) {
  const target = packageDir(name, fromDir);
  if (!target) return; // an optional peer the workspace does not install for this package
  const to = join(modules, name);
  mkdirSync(dirname(to), { recursive: true });
  if (!existsSync(to)) symlinkSync(target, to, "dir");
}

beforeAll(async () => {
  const [cmd, pre] = pnpm();
  const tarballs = join(scratch, "tarballs");
  await Promise.all(
    Object.entries(PACKAGES).map(async ([name, dir]) => {
      const out = join(tarballs, dir);
      mkdirSync(out, { recursive: true });
      await promisify(execFile)(
        cmd,
        [...pre, "pack", "--pack-destination", out, "--config.ignore-scripts=true"],
        { cwd: join(ROOT, dir) },
      );
      const into = join(modules, name);
      mkdirSync(into, { recursive: true });
      const tgz = readdirSync(out).find((f) => f.endsWith(".tgz"))!;
      const untar = spawnSync("tar", ["-xzf", join(out, tgz), "-C", into, "--strip-components=1"]);
      if (untar.status !== 0) throw new Error(`tar: ${untar.stderr}`);
    }),
  );
  // Their dependencies and peers, from the workspace (a sibling resolves to its unpacked copy above).
  for (const dir of Object.values(PACKAGES)) {
    const m = manifest(dir);
    for (const dep of Object.keys({ ...m.dependencies, ...m.peerDependencies }))
      if (!dep.startsWith("@commonly/")) link(dep, join(ROOT, dir));
  }
  // Node's own types: a consumer's usual dev dependency.
  link("@types/node", ROOT);
  const lines = specifiers.map((s, i) => `import * as m${i} from ${JSON.stringify(s)};`);
  lines.push(`export const all = [${specifiers.map((_, i) => `m${i}`).join(", ")}];`);
  const consumer = `${lines.join("\n")}\n`;
  // One project per mode, checked at once (each tsc reads the kernel's and Fastify's declarations).
  await Promise.all(MODES.map(async (mode) => checked.set(mode.resolution, await typeCheck(mode, consumer))));
}, 180_000);

/** Writes the consumer project for `mode` and runs tsc on it; resolves with its exit code and output. */
async function typeCheck(mode: (typeof MODES)[number], consumer: string) {
  const { resolution, module, esm } = mode;
  const dir = join(scratch, resolution);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: `consumer-${resolution}`, private: true, ...(esm ? { type: "module" } : {}) }),
  );
  writeFileSync(join(dir, "consumer.ts"), consumer);
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "es2022",
        module,
        moduleResolution: resolution,
        strict: true,
        // What `tsc --init` writes; pino's declarations (through the kernel's) default-import a CommonJS module.
        esModuleInterop: true,
        noEmit: true,
        skipLibCheck: false,
        types: ["node"],
        typeRoots: [join(modules, "@types")],
      },
      files: ["consumer.ts"],
    }),
  );
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  try {
    await promisify(execFile)(process.execPath, [tsc, "-p", dir, "--pretty", "false"], {
      maxBuffer: 1 << 24,
    });
    return { code: 0, output: "" };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, output: `${e.stdout ?? ""}${e.stderr ?? ""}` };
  }
}

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("a TypeScript consumer of the packed packages", () => {
  it("imports every typed export: the SDK's five, the spec's three, the kernel's two, the others' roots", () => {
    expect(specifiers).toEqual([
      "@commonly/cap-sdk",
      "@commonly/cap-sdk/validators",
      "@commonly/cap-sdk/types",
      "@commonly/cap-sdk/admin",
      "@commonly/cap-sdk/node",
      "@commonly/cap-spec/types/cap",
      "@commonly/cap-spec/types/admin",
      "@commonly/cap-spec/constants",
      "@commonly/cap-kernel",
      "@commonly/cap-kernel/testing",
      "@commonly/cap-console",
      "@commonly/cap-conformance",
      "@commonly/cli",
    ]);
  });

  it.each(MODES)("type-checks under moduleResolution $resolution", ({ resolution }) => {
    expect(checked.get(resolution)).toEqual({ code: 0, output: "" });
  });
});
