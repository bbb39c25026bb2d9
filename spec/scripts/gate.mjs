#!/usr/bin/env node
// The breaking-change gate: fails (exit 1) when the current CAP v1 contract breaks what was released.
// Compares spec/generated/cap-v1.openapi.yaml with every frozen spec/released/cap-v1.*.openapi.yaml, the
// requirements manifest with every frozen cap-v1.*.requirements.json, and the admin document with the
// frozen kernel-admin copies of its own major version (the admin surface is versioned apart from CAP; see
// spec/README.md). Run: pnpm --filter @commonly/cap-spec gate   (npm test runs it through test/gate.test.ts).
// Try a change without touching the tree: --current-cap FILE, --current-requirements FILE,
// --current-admin FILE; --additive also lists what passed. Reads only; never writes a file.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { parse } from "yaml";
import { ADMIN_POLICY, CAP_POLICY, compareOpenApi } from "./gate/openapi-changes.mjs";
import { compareRequirements } from "./gate/requirements-changes.mjs";

const spec = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { values: args } = parseArgs({
  options: {
    "current-cap": { type: "string", default: join(spec, "generated", "cap-v1.openapi.yaml") },
    "current-requirements": { type: "string", default: join(spec, "generated", "requirements.json") },
    "current-admin": { type: "string", default: join(spec, "generated", "kernel-admin.openapi.yaml") },
    additive: { type: "boolean", default: false },
  },
});

const read = (file) => parse(readFileSync(file, "utf8"));
const show = (file) => relative(process.cwd(), file) || file;
const released = join(spec, "released");
const frozen = (prefix, suffix) =>
  existsSync(released)
    ? readdirSync(released)
        .filter((f) => f.startsWith(prefix) && f.endsWith(suffix))
        .sort()
        .map((f) => join(released, f))
    : [];
const major = (doc) => String(doc.info?.version ?? "").split(".")[0];

let failed = 0;
function report(title, breaking, others, label) {
  console.log(
    `${breaking.length ? "FAIL" : "ok  "} ${title}: ${breaking.length} breaking, ${others.length} ${label}`,
  );
  for (const b of breaking) console.log(`  ✗ ${b.where ?? b.id}: ${b.what}${b.why ? `  [${b.why}]` : ""}`);
  if (args.additive || label === "notices")
    for (const o of others) console.log(`  · ${o.where ?? o.id}: ${o.what}`);
  failed += breaking.length;
}

// CAP v1: OpenAPI and requirements against every frozen 1.x release.
const cap = read(args["current-cap"]);
if (major(cap) !== "1") {
  console.log(
    `FAIL ${show(args["current-cap"])} says version ${cap.info?.version}; CAP v1 stays 1.x (CAP-VER-2: v2 is a new base path and document)`,
  );
  failed++;
}
const capReleases = frozen("cap-v1.", ".openapi.yaml");
const reqReleases = frozen("cap-v1.", ".requirements.json");
if (capReleases.length === 0 || reqReleases.length === 0) {
  console.log(
    `FAIL nothing of CAP v1 is frozen in ${show(released)}: run \`pnpm --filter @commonly/cap-spec freeze -- cap 1.0.0\``,
  );
  failed++;
}
for (const file of capReleases) {
  const { breaking, additive } = compareOpenApi(read(file), cap, CAP_POLICY);
  report(`CAP ${show(args["current-cap"])} against ${show(file)}`, breaking, additive, "additive");
}
const requirements = JSON.parse(readFileSync(args["current-requirements"], "utf8"));
for (const file of reqReleases) {
  const { breaking, notices } = compareRequirements(JSON.parse(readFileSync(file, "utf8")), requirements);
  report(
    `requirements ${show(args["current-requirements"])} against ${show(file)}`,
    breaking,
    notices,
    "notices",
  );
}

// The admin surface: only against frozen copies of the same major version (a new major may break it).
const admin = read(args["current-admin"]);
const adminReleases = frozen(`kernel-admin-v${major(admin)}.`, ".openapi.yaml");
if (adminReleases.length === 0)
  console.log(
    `ok   admin ${admin.info?.version}: no frozen kernel-admin-v${major(admin)}.x yet, nothing to compare`,
  );
for (const file of adminReleases) {
  const { breaking, additive } = compareOpenApi(read(file), admin, ADMIN_POLICY);
  report(`admin ${show(args["current-admin"])} against ${show(file)}`, breaking, additive, "additive");
}

if (failed > 0) {
  console.log(
    `\n${failed} breaking change(s). CAP v1 may only change additively (CAP-VER-1); a breaking change is CAP v2 under a new base path (CAP-VER-2).`,
  );
  process.exit(1);
}
