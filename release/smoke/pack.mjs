/**
 * The tarballs a release would publish: `pnpm pack` of every package npm publishes (pnpm is the packer
 * `pnpm publish -r` uses, so `workspace:^` becomes `^x.y.z` exactly as on publish). The workspace is
 * already built (turbo builds release/'s dependencies before its tests), so a package whose `prepack` is
 * only `pnpm run build` is packed with scripts off; one whose prepack does more (the console copies the
 * docs site into itself) is packed with its prepack, as publishing would.
 *
 * Must never: pack from anything but the workspace folders, or hide a failed pack.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { publishedPackages, ROOT } from "../workspace.mjs";
import { step } from "./steps.mjs";

const PNPM = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).packageManager.replace(
  /^pnpm@/,
  "",
);

/** `[{name, dir, version, tarball, bytes}]`, one per published package, packed into `out`. */
export async function packAll(out, env) {
  const packed = [];
  // One at a time: the console's prepack runs turbo, and two turbos in one workspace wait on each other.
  for (const { name, dir, json } of publishedPackages()) {
    const onlyBuild = !json.scripts?.prepack || json.scripts.prepack === "pnpm run build";
    const before = new Set(readdirSync(out));
    await step(
      `pack ${name}${onlyBuild ? "" : " (with its prepack)"}`,
      "npx",
      [
        "-y",
        `pnpm@${PNPM}`,
        "pack",
        "--pack-destination",
        out,
        ...(onlyBuild ? ["--config.ignore-scripts=true"] : []),
      ],
      { cwd: join(ROOT, dir), env },
    );
    const made = readdirSync(out).filter((f) => !before.has(f) && f.endsWith(".tgz"));
    if (made.length !== 1) throw new Error(`pack ${name}: expected one new tarball in ${out}, found ${made}`);
    const tarball = join(out, made[0]);
    packed.push({ name, dir, version: json.version, tarball, bytes: statSync(tarball).size });
  }
  return packed;
}
