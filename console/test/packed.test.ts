/**
 * The console as npm ships it: `pnpm pack` runs its prepack (dist/, then the docs site copied into
 * docs-site/ by scripts/bundle-docs.mjs), the tarball is unpacked outside the workspace, and a plain Node
 * process serves the unpacked package's own plugin with no options — as the kernel calls it — on a real
 * socket: `/console/` and every `/docs/` page answer from files inside the package. An installed kernel
 * answering `/docs/` 404 (issue 31) fails here.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const pkgDir = fileURLToPath(new URL("..", import.meta.url));
const rootPkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
  packageManager: string;
};

// The pinned pnpm (the root's packageManager): a global one of that version, npx otherwise.
function pnpm(): [string, string[]] {
  const pinned = rootPkg.packageManager.split("@")[1]!;
  const probe = spawnSync("pnpm", ["--version"], { encoding: "utf8" });
  return probe.status === 0 && probe.stdout.trim() === pinned
    ? ["pnpm", []]
    : ["npx", ["-y", `pnpm@${pinned}`]];
}

const scratch = mkdtempSync(join(tmpdir(), "cap-console-packed-"));
let unpacked: string;
let listing: string[];
let server: ChildProcess | undefined;
let base: string;
let docsDir: string;

// The host app: Fastify (the console's optional peer, this workspace's copy) and the unpacked plugin.
const HOST = (fastify: string) => `
import Fastify from ${JSON.stringify(fastify)};
import { defaultDocsDir, registerConsoleAndDocs } from "./package/dist/index.js";
const app = Fastify({ exposeHeadRoutes: false });
await registerConsoleAndDocs(app);
await app.listen({ port: 0, host: "127.0.0.1" });
process.stdout.write(JSON.stringify({ port: app.server.address().port, defaultDocsDir }) + "\\n");
`;

beforeAll(async () => {
  const [cmd, pre] = pnpm();
  const packed = spawnSync(cmd, [...pre, "pack", "--pack-destination", scratch, "--json"], {
    cwd: pkgDir,
    encoding: "utf8",
    maxBuffer: 1 << 24,
  });
  if (packed.status !== 0) throw new Error(`pnpm pack failed:\n${packed.stdout}\n${packed.stderr}`);
  const tarball = (JSON.parse(packed.stdout.slice(packed.stdout.indexOf("{"))) as { filename: string })
    .filename;
  const untar = spawnSync("tar", ["-xzf", tarball, "-C", scratch], { encoding: "utf8" });
  if (untar.status !== 0) throw new Error(`tar failed: ${untar.stderr}`);
  listing = spawnSync("tar", ["-tzf", tarball], { encoding: "utf8" }).stdout.trim().split("\n");
  unpacked = join(scratch, "package");
  const fastify = pathToFileURL(createRequire(import.meta.url).resolve("fastify")).href;
  writeFileSync(join(scratch, "host.mjs"), HOST(fastify));
  const child = spawn(process.execPath, ["host.mjs"], { cwd: scratch, stdio: ["ignore", "pipe", "inherit"] });
  server = child;
  const first = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("\n")) resolve(out.split("\n")[0]!);
    });
    child.once("exit", (code) => reject(new Error(`the host exited (${code}) before listening: ${out}`)));
  });
  const started = JSON.parse(first) as { port: number; defaultDocsDir: string };
  base = `http://127.0.0.1:${started.port}`;
  docsDir = started.defaultDocsDir;
}, 300_000);

afterAll(() => {
  server?.kill("SIGTERM");
  rmSync(scratch, { recursive: true, force: true });
});

const get = async (path: string) => {
  const res = await fetch(base + path);
  return { status: res.status, type: res.headers.get("content-type"), body: await res.text() };
};

describe("the packed console", () => {
  it("carries the built docs site, the console and dist/, and no source maps", () => {
    for (const f of ["docs-site/index.html", "docs-site/pages.json", "public/index.html", "dist/index.js"])
      expect(listing).toContain(`package/${f}`);
    expect(listing.filter((f) => f.endsWith(".map"))).toEqual([]);
  });

  it("serves the docs from a folder inside the package, not from a repository beside it", () => {
    expect(docsDir).toBe(join(unpacked, "docs-site"));
    expect(relative(unpacked, docsDir).split(sep)[0]).not.toBe("..");
  });

  it("answers /console/ with the console", async () => {
    const res = await get("/console/");
    expect(res.status).toBe(200);
    expect(res.type).toBe("text/html; charset=utf-8");
    expect(res.body).toContain("<script");
  });

  it("answers /docs/ and every page the site lists with 200", async () => {
    const home = await get("/docs/");
    expect(home.status).toBe(200);
    expect(home.body).not.toContain("is not built");
    const pages = (
      JSON.parse(readFileSync(join(unpacked, "docs-site", "pages.json"), "utf8")) as {
        pages: { href: string }[];
      }
    ).pages.map((p) => p.href);
    expect(pages.length).toBeGreaterThan(5);
    const answers = await Promise.all(
      pages.map(async (href) => `${(await get(`/docs/${href}`)).status} ${href}`),
    );
    expect(answers).toEqual(pages.map((href) => `200 ${href}`));
  });
});
