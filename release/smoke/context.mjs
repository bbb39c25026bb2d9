/**
 * What every check on one Node version shares: the Node binary (first on PATH), a scratch HOME whose
 * `.npmrc` points the `@commonly` scope at the scratch registry, npm's download cache in the smoke's cache
 * folder, and the versions the registry holds.
 *
 * Must never: share a HOME between Node versions (npx's cache, `~/.commonly` and pip state would cross).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanEnv } from "./clean-env.mjs";
import { nativeSetup } from "./native-cache.mjs";
import { cacheDir, scratchDir } from "./scratch.mjs";

/**
 * `release`: what the global setup provided — `{registryUrl, npmrc, published: [{name, version}]}`.
 * Resolves `{major, node, runtime, home, env, spec(name)}`; `spec` is `name@version` as published.
 */
export function nodeContext(runtime, release) {
  const home = scratchDir(`home-node${runtime.major}`);
  writeFileSync(join(home, ".npmrc"), release.npmrc);
  const env = cleanEnv({
    home,
    pathFirst: [runtime.bin],
    set: { npm_config_cache: cacheDir("npm"), ...nativeSetup(runtime, home) },
  });
  const versions = new Map(release.published.map((p) => [p.name, p.version]));
  return {
    major: runtime.major,
    node: runtime.version,
    runtime,
    home,
    env,
    registryUrl: release.registryUrl,
    spec: (name) => {
      if (!versions.has(name)) throw new Error(`${name} is not in the scratch registry`);
      return `${name}@${versions.get(name)}`;
    },
  };
}
