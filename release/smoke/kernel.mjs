/**
 * The reference kernel as its README has a user run it from an install: `npm install
 * @commonly/cap-kernel`, then `npx cap-kernel provision …` and `npx cap-kernel serve …` in that project.
 * The kernel serves on a port the OS picks, with a one-second lease so the conformance suite's lease
 * checks finish quickly, and provisions a human (a pod admin) with two agents for the Python drivers, and
 * the conformance fixture.
 *
 * Must never: leave the kernel running — it is a `service`, stopped with its process group.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { keepCompiled } from "./native-cache.mjs";
import { npmProject } from "./npm-project.mjs";
import { service, step } from "./steps.mjs";

const LEASE = ["--lease-seconds", "1", "--max-attempts", "3"];
const DB = "sqlite:kernel.db";

/** `npm install @commonly/cap-kernel@<version>` into a project of its own. */
export async function installKernel(ctx) {
  const project = await npmProject(`kernel-node${ctx.major}`, [ctx.spec("@commonly/cap-kernel")], ctx);
  await keepCompiled(project.dir, ctx.runtime, ctx.env);
  return project;
}

/** Provisions, serves and writes the fixture; resolves `{url, version, provisioned, fixture, serve}`. */
export async function startKernel(ctx, project) {
  const npx = (what, args) =>
    step(`Node ${ctx.node}: ${what}`, "npx", ["cap-kernel", ...args], { cwd: project.dir, env: ctx.env });
  const version = (await npx("cap-kernel --version", ["--version"])).stdout.trim();
  const provisioned = JSON.parse(
    (
      await npx("cap-kernel provision (a pod admin, two agents)", [
        "provision",
        "--db",
        DB,
        "--admin",
        "lily",
        "--pod",
        "lab",
        "--agent",
        "py-wheel@lab",
        "--agent",
        "py-sdist@lab",
      ])
    ).stdout,
  );
  const serve = service(
    `Node ${ctx.node}: cap-kernel serve`,
    "npx",
    ["cap-kernel", "serve", "--port", "0", "--db", DB, ...LEASE, "--log-level", "warn"],
    { cwd: project.dir, env: ctx.env },
  );
  const [, url] = await serve.waitForOutput(/listening on (http:\/\/\S+)/);
  const fixture = join(project.dir, "fixture.json");
  const printed = await npx("cap-kernel provision --for-conformance", [
    "provision",
    "--for-conformance",
    "--db",
    DB,
    "--base-url",
    url,
    ...LEASE,
  ]);
  writeFileSync(fixture, printed.stdout);
  return { url, version, provisioned, fixture, serve };
}

/** GET `path` of the kernel: `{status, type, body}`. */
export async function fetchPage(url, path) {
  const res = await fetch(new URL(path, url), { redirect: "manual" });
  return { status: res.status, type: res.headers.get("content-type") ?? "", body: await res.text() };
}
