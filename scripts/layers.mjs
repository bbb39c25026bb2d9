#!/usr/bin/env node
/**
 * Layers that run one way: inside each TypeScript package, imports only go down a short, written layer
 * order, and nothing imports itself back round a circle (type-only imports count: they make the design
 * circular just the same). dependency-cruiser reads the imports; this module only turns each package's
 * layer order into its rules (`no-circular`, one `upward` rule per layer) and adds one check of its own:
 * every module belongs to a layer, so a new folder is placed in the order instead of slipping past it.
 *
 * Each package's `test/layers.test.ts` runs `layerViolations(<package>)` inside `npm test`;
 * `node scripts/layers.mjs [package…]` prints the same report. Never edit a layer order to let an
 * upward import through: move the module (or the shared piece of it) down instead.
 */
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { cruise } from "dependency-cruiser";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** A folder or file pattern list, as one anchored regular expression over paths relative to the package. */
const any = (...paths) => `^(${paths.join("|")})`;

/**
 * Every package's layer order, top (may import everything below) to bottom (imports nothing above).
 * Modules of one layer may import each other; `no-circular` still keeps them from importing round.
 */
export const PACKAGES = {
  // The SDK: entry points → the driver (its loop and internal/driver/) → the clients (CAP's, the admin
  // API's, and internal/client/: transport, lenient reading, ids, time) → validators → shared shapes and
  // errors.
  "sdk-ts": {
    roots: ["src"],
    layers: [
      { name: "entry", path: any("src/index\\.ts$", "src/node\\.ts$", "src/node/") },
      { name: "driver", path: any("src/driver\\.ts$", "src/driver-types\\.ts$", "src/internal/driver/") },
      { name: "client", path: any("src/client\\.ts$", "src/admin\\.ts$", "src/internal/client/") },
      { name: "validators", path: any("src/validators\\.ts$", "src/validator-runtime\\.ts$") },
      {
        name: "shapes",
        path: any("src/types\\.ts$", "src/errors\\.ts$", "src/version\\.ts$", "src/handled-store\\.ts$"),
      },
    ],
  },
  // The kernel: bin/index/testing entry points → cli (commands, demo) → http (routes) → tracing
  // (OpenTelemetry, wrapped around the kernel's parts when on) → profiles (wire dialects, which may name the
  // records kernel.ts hands out) → kernel.ts (the composition root) → services → store → clock, config,
  // errors, secrets.
  "reference-server": {
    roots: ["src"],
    layers: [
      { name: "entry", path: any("src/bin\\.ts$", "src/index\\.ts$", "src/testing/", "src/testing\\.ts$") },
      { name: "cli", path: any("src/cli/", "src/demo/") },
      { name: "http", path: any("src/http/") },
      { name: "tracing", path: any("src/tracing/") },
      { name: "profiles", path: any("src/profiles/") },
      { name: "composition", path: any("src/kernel\\.ts$") },
      { name: "services", path: any("src/services/") },
      { name: "store", path: any("src/store/") },
      {
        name: "base",
        path: any(
          "src/clock\\.ts$",
          "src/config\\.ts$",
          "src/errors/",
          "src/secrets\\.ts$",
          "src/optional-peer\\.ts$",
          "src/version\\.ts$",
        ),
      },
    ],
  },
  // The conformance suite: commands → output (reports, list, io) → runners (kernel and driver suites) →
  // checks and driver scenarios → what a check is → contexts (what a running check sees, the queue
  // helper, the driver's world) → fixture agents → http/io (client, audit, canary, timing) → settings
  // and the requirements manifest → features and version.
  conformance: {
    roots: ["src"],
    layers: [
      {
        name: "commands",
        path: any("src/bin\\.ts$", "src/index\\.ts$", "src/cli\\.ts$", "src/driver/cli\\.ts$"),
      },
      { name: "output", path: any("src/reports/", "src/list\\.ts$", "src/io\\.ts$") },
      { name: "runner", path: any("src/runner/", "src/driver/run-driver-suite\\.ts$") },
      { name: "checks", path: any("src/checks/", "src/driver/scenarios/") },
      { name: "check", path: any("src/check\\.ts$", "src/driver/check\\.ts$") },
      {
        name: "context",
        path: any(
          "src/context\\.ts$",
          "src/queue\\.ts$",
          "src/driver/context\\.ts$",
          "src/driver/world\\.ts$",
          "src/driver/reference-kernel\\.ts$",
          "src/driver/driver-process\\.ts$",
          "src/driver/fault-proxy\\.ts$",
        ),
      },
      { name: "agents", path: any("src/agents\\.ts$") },
      {
        name: "http",
        path: any("src/http/", "src/canary\\.ts$", "src/timing\\.ts$", "src/error-registry\\.ts$"),
      },
      {
        name: "settings",
        path: any("src/config/", "src/driver/settings\\.ts$", "src/requirements\\.ts$", "src/baseline\\.ts$"),
      },
      { name: "features", path: any("src/features\\.ts$", "src/version\\.ts$") },
    ],
  },
  // The `commonly` CLI: bin → commands (cli/) → the run loop → adapters, replies, turns, memory bridge,
  // the admin API → local state → terminal output (ui/) → the error registry.
  cli: {
    roots: ["src"],
    layers: [
      { name: "entry", path: any("src/bin\\.ts$", "src/index\\.ts$") },
      { name: "commands", path: any("src/cli/") },
      { name: "loop", path: any("src/loop/") },
      {
        name: "parts",
        path: any(
          "src/adapters/",
          "src/kernel/",
          "src/reply\\.ts$",
          "src/turn\\.ts$",
          "src/memory-bridge\\.ts$",
        ),
      },
      { name: "state", path: any("src/state/") },
      { name: "ui", path: any("src/ui/") },
      { name: "errors", path: any("src/errors\\.ts$") },
    ],
  },
  // The console: the Fastify plugin (src/) → its test kit; the browser app: main.js (wiring) → panels
  // (one per section of the page) → page helpers and the shared session (dom.js, session.js) → the admin
  // API client and the models (pure functions: the console's, the trace view's).
  console: {
    roots: ["src", "public/js"],
    layers: [
      { name: "plugin", path: any("src/index\\.ts$", "src/serve\\.ts$", "src/home\\.ts$", "src/csp\\.ts$") },
      { name: "testing", path: any("src/testing/") },
      { name: "main", path: any("public/js/main\\.js$") },
      { name: "panels", path: any("public/js/panels/") },
      { name: "page", path: any("public/js/dom\\.js$", "public/js/session\\.js$") },
      {
        name: "model",
        path: any("public/js/api\\.js$", "public/js/model\\.js$", "public/js/trace-model\\.js$"),
      },
    ],
  },
  // The docs site builder: build.mjs (and includes.mjs, which writes included files into the markdown) → page makers (layout, benchmarks, openapi, requirements, site map)
  // → markdown rendering; last, the browser scripts the pages load (build/assets/), which import nothing
  // of the builder.
  docs: {
    roots: ["build"],
    layers: [
      { name: "build", path: any("build/build\\.mjs$", "build/includes\\.mjs$") },
      {
        name: "pages",
        path: any(
          "build/layout\\.mjs$",
          "build/benchmarks\\.mjs$",
          "build/openapi\\.mjs$",
          "build/requirements\\.mjs$",
          "build/site-map\\.mjs$",
          "build/llms\\.mjs$",
          "build/search-index\\.mjs$",
          "build/highlight-theme\\.mjs$",
        ),
      },
      { name: "markdown", path: any("build/markdown\\.mjs$") },
      { name: "assets", path: any("build/assets/") },
    ],
  },
};

/** dependency-cruiser rules for one layer order: `no-circular` and, per layer, nothing from above. */
export function layerRules(layers) {
  const forbidden = [
    {
      name: "no-circular",
      severity: "error",
      comment: "An import circle (type-only imports included) makes two modules one design.",
      from: {},
      to: { circular: true },
    },
  ];
  layers.forEach((layer, i) => {
    if (i === 0) return;
    forbidden.push({
      name: `upward:${layer.name}`,
      severity: "error",
      comment: `${layer.name} may not import ${layers
        .slice(0, i)
        .map((l) => l.name)
        .join(", ")}`,
      from: { path: layer.path },
      to: { path: layers.slice(0, i).map((l) => l.path) },
    });
  });
  return { forbidden };
}

/**
 * Cruises `roots` (paths relative to `dir`) and returns one line per violation: a circle, an upward
 * import, or a module that belongs to no layer. Empty when the package runs one way.
 */
export async function checkLayers(dir, { roots, layers }) {
  const { output } = await cruise(roots, {
    baseDir: dir,
    validate: true,
    ruleSet: layerRules(layers),
    tsPreCompilationDeps: true,
    includeOnly: any(...roots.map((r) => `${r}/`)),
    exclude: { path: "(^|/)(node_modules|dist|generated)/" },
  });
  const result = /** @type {import("dependency-cruiser").ICruiseResult} */ (output);
  const found = result.summary.violations.map((v) =>
    v.cycle
      ? `${v.rule.name}: ${[v.from, ...v.cycle.map((c) => c.name)].join(" → ")}`
      : `${v.rule.name}: ${v.from} → ${v.to}`,
  );
  const patterns = layers.map((l) => new RegExp(l.path));
  for (const m of result.modules) {
    if (!patterns.some((p) => p.test(m.source))) found.push(`unlayered: ${m.source}`);
  }
  return found;
}

/** The violations of one workspace package (`sdk-ts`, `cli`, …), by its folder name. */
export function layerViolations(name) {
  const pkg = PACKAGES[name];
  if (!pkg) throw new Error(`no layer order for package ${name}`);
  return checkLayers(join(root, name), pkg);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const names = process.argv.length > 2 ? process.argv.slice(2) : Object.keys(PACKAGES);
  let bad = 0;
  for (const name of names) {
    const found = await layerViolations(name);
    bad += found.length;
    console.log(found.length ? `${name}:\n  ${found.join("\n  ")}` : `${name}: runs one way`);
  }
  process.exit(bad ? 1 : 0);
}
