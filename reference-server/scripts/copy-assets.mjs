#!/usr/bin/env node
// Copies the non-TypeScript files the kernel reads at run time (SQL migrations) from src/ into dist/,
// because tsc only emits .js. Run by `pnpm build` after tsc.
import { cpSync, mkdirSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
for (const dir of ["store/sqlite/migrations", "store/postgres/migrations"]) {
  const from = join(root, "src", dir);
  let files;
  try {
    files = readdirSync(from).filter((f) => f.endsWith(".sql"));
  } catch {
    continue;
  }
  const to = join(root, "dist", dir);
  mkdirSync(to, { recursive: true });
  for (const f of files) cpSync(join(from, f), join(to, f));
}

// The bin is run directly (`./dist/bin.js`) as well as through package-manager shims.
import { chmodSync } from "node:fs";

chmodSync(join(root, "dist", "bin.js"), 0o755);
