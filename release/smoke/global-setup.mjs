/**
 * Vitest global setup of the `installed` project (release/vitest.config.mjs): makes, once per run, what
 * every pack-and-install check shares — the tarballs of every published package, the Python wheel and
 * sdist, and a scratch registry holding the tarballs as the release will publish them — and provides their
 * description to the test files as `inject("release")`. Teardown closes the registry and removes the
 * scratch folders.
 *
 * Must never: leave the registry listening or a scratch folder behind (CAP_SMOKE_KEEP=1 keeps the folders).
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanEnv } from "./clean-env.mjs";
import { packAll } from "./pack.mjs";
import { buildDists } from "./python.mjs";
import { startRegistry } from "./registry.mjs";
import { CACHE, cacheDir, removeScratch, scratchDir } from "./scratch.mjs";

export default async function setup(project) {
  const started = Date.now();
  const work = scratchDir("release");
  const packs = join(work, "packs");
  mkdirSync(packs);
  const packed = await packAll(packs, process.env);
  const python = await buildDists();
  const registry = await startRegistry(join(work, "registry"));
  const home = join(work, "publisher");
  mkdirSync(home);
  writeFileSync(join(home, ".npmrc"), registry.npmrc());
  // npx keeps what it installed by package spec; a spec of the last run must not find that run's tarball.
  rmSync(join(CACHE, "npm", "_npx"), { recursive: true, force: true });
  const published = await registry.publish(
    packed,
    cleanEnv({ home, set: { npm_config_cache: cacheDir("npm") } }),
  );
  const seconds = Math.round((Date.now() - started) / 100) / 10;
  console.log(`release smoke: packed, built and published in ${seconds} s to ${registry.url}`);
  project.provide("release", {
    registryUrl: registry.url,
    npmrc: registry.npmrc(),
    published,
    packed: packed.map(({ name, version, tarball, bytes }) => ({ name, version, tarball, bytes })),
    python,
    setupSeconds: seconds,
  });
  return async () => {
    await registry.close();
    removeScratch();
  };
}
