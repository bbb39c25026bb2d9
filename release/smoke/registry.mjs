/**
 * A scratch npm registry (verdaccio, on 127.0.0.1, storage in a scratch folder) that holds the packed
 * tarballs as the release will publish them, so installs run exactly as the READMEs and the example
 * workflows say — `npm install @commonly/cap-kernel`, `npx --yes @commonly/cap-conformance@1 …` — with
 * nothing substituted. Only the `@commonly` scope is pointed at it (the `@commonly:registry` setting);
 * every other package comes from the public npm registry, as it will for a user.
 *
 * The tree's versions are prereleases until `changeset version` runs (1.0.0-rc.0), and `@1` does not match a
 * prerelease, so each tarball is published here as the version that release gets (the prerelease tag
 * dropped: 1.0.0), with its `^1.0.0-rc.0` sibling ranges raised the same way and its `publishConfig` removed
 * (provenance can only be made on CI). Nothing else in the tarball changes.
 *
 * Must never: proxy the `@commonly` scope to the public registry (a published 1.0.0 there would be
 * installed instead of the tarball under test), or listen anywhere but 127.0.0.1.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runServer } from "verdaccio";
import { step } from "./steps.mjs";

/** The version a release of this tree publishes: 1.0.0-rc.0 → 1.0.0. */
export const releaseVersion = (version) => version.replace(/-.*$/, "");

/**
 * Starts the registry; resolves `{url, npmrc(), publish(packed, env), close()}`. `npmrc()` is the user
 * configuration a scratch HOME needs to install from it (and, with the token, to publish to it).
 */
export async function startRegistry(dir) {
  const storage = join(dir, "storage");
  mkdirSync(storage, { recursive: true });
  const server = await runServer({
    self_path: join(dir, "config.yaml"),
    storage,
    auth: { htpasswd: { file: join(dir, "htpasswd"), max_users: 1 } },
    uplinks: {},
    packages: { "**": { access: "$all", publish: "$authenticated" } },
    web: { enable: false },
    log: { type: "stdout", format: "pretty", level: "error" },
  });
  await new Promise((resolve, reject) => server.listen(0, "127.0.0.1", resolve).once("error", reject));
  const url = `http://127.0.0.1:${server.address().port}/`;
  const user = await fetch(new URL("-/user/org.couchdb.user:smoke", url), {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "smoke", password: "smoke-password", type: "user", roles: [] }),
  });
  if (!user.ok) throw new Error(`the scratch registry refused its user: ${user.status} ${await user.text()}`);
  const { token } = await user.json();
  const hostPath = url.replace(/^http:/, "");

  return {
    url,
    npmrc: () => [`@commonly:registry=${url}`, `${hostPath}:_authToken=${token}`, ""].join("\n"),
    /** Publishes each packed tarball as its release version; resolves the versions published. */
    async publish(packed, env) {
      const work = join(dir, "publish");
      const published = [];
      for (const p of packed) {
        const unpacked = join(work, p.name.replace("/", "+"));
        rmSync(unpacked, { recursive: true, force: true });
        mkdirSync(unpacked, { recursive: true });
        await step(`unpack ${p.name}`, "tar", ["-xzf", p.tarball, "-C", unpacked], { env });
        const manifest = join(unpacked, "package", "package.json");
        const json = JSON.parse(readFileSync(manifest, "utf8"));
        writeFileSync(manifest, `${JSON.stringify(asReleased(json), null, 2)}\n`);
        const tarball = join(work, `${p.name.replace("/", "+")}.tgz`);
        await step(
          `repack ${p.name} as ${releaseVersion(json.version)}`,
          "tar",
          ["-czf", tarball, "-C", unpacked, "package"],
          { env },
        );
        await step(
          `publish ${p.name} to the scratch registry`,
          "npm",
          ["publish", tarball, "--ignore-scripts", "--registry", url],
          { env },
        );
        published.push({ name: p.name, version: releaseVersion(json.version) });
      }
      return published;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The manifest as `changeset version` and `pnpm publish` would leave it, minus publishConfig. */
export function asReleased(json) {
  const out = { ...json, version: releaseVersion(json.version) };
  delete out.publishConfig;
  for (const field of ["dependencies", "peerDependencies", "optionalDependencies"]) {
    if (!out[field]) continue;
    out[field] = Object.fromEntries(
      Object.entries(out[field]).map(([dep, range]) => [
        dep,
        dep.startsWith("@commonly/") ? range.replace(/^([\^~]?)(\d+\.\d+\.\d+)-[\w.]+$/, "$1$2") : range,
      ]),
    );
  }
  return out;
}
