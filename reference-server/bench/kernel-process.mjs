/**
 * Starting servers under test in their own processes: the Fastify baseline and `cap-kernel serve` replicas
 * (the built `dist/bin.js`, run by this Node directly so the PID is the server's own, for RSS readings).
 * Must never start anything that listens beyond 127.0.0.1.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, startChild, waitUntil } from "./children.mjs";
import { createClient } from "./load.mjs";

const here = dirname(fileURLToPath(import.meta.url));
export const kernelRoot = join(here, "..");
/** The built kernel; overridable (CAP_BENCH_DIST) only so the harness can be tried against another build. */
export const kernelDist = process.env.CAP_BENCH_DIST ?? join(kernelRoot, "dist");
export const kernelBin = join(kernelDist, "bin.js");

async function healthy(baseUrl, path) {
  const c = createClient(baseUrl);
  try {
    const r = await c.request("GET", path, { timeoutMs: 1000 });
    return r.status === 200;
  } finally {
    c.close();
  }
}

/**
 * The kernel's per-client limits, lifted for load generation: every bench client is one address posting,
 * polling and connecting far beyond what one honest driver does (2,000 idle drivers on one address, the
 * conversational posters). Given as environment, not flags, so a build from before the limits (`dist`,
 * CAP_BENCH_DIST) still starts.
 */
const BENCH_LIMITS = {
  CAP_MESSAGES_PER_MINUTE: "1000000000",
  CAP_MESSAGE_BYTES_PER_MINUTE: "2000000000",
  CAP_MAX_LONG_POLLS_PER_TOKEN: "1000000",
  CAP_MAX_CONNECTIONS_PER_CLIENT: "1000000",
  CAP_AUTH_FAILURES_PER_MINUTE: "1000000000",
};

/** The Fastify hello-world baseline on a free port. */
export async function startBaseline() {
  const port = await freePort();
  const handle = startChild("fastify-baseline", process.execPath, [
    join(here, "baseline-server.mjs"),
    String(port),
  ]);
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitUntil("the baseline server", () => handle.output().includes("ready"), { handle });
  return { handle, baseUrl };
}

/** Why the kernel cannot be benchmarked yet, or null when `dist/bin.js` exists. */
export function kernelMissing() {
  return existsSync(kernelBin)
    ? null
    : `${kernelBin} does not exist (no \`cap-kernel serve\` built yet; run the build first)`;
}

/**
 * `cap-kernel serve --db DB` on a free port, ready when /healthz answers 200.
 * `options`: leaseSeconds, maxAttempts, name (for error reports), nodeArgs (e.g. `--cpu-prof`), dist (the
 * build to run; default the bench's).
 */
export async function startKernel(
  db,
  { leaseSeconds, maxAttempts, name = "cap-kernel", nodeArgs = [], dist = kernelDist, env = {} } = {},
) {
  const bin = join(dist, "bin.js");
  if (!existsSync(bin)) throw new Error(`${bin} does not exist (build it first)`);
  const port = await freePort();
  const args = [
    ...nodeArgs,
    bin,
    "serve",
    "--host",
    "127.0.0.1",
    "--port",
    String(port),
    "--db",
    db,
    "--log-level",
    "warn",
  ];
  if (leaseSeconds !== undefined) args.push("--lease-seconds", String(leaseSeconds));
  if (maxAttempts !== undefined) args.push("--max-attempts", String(maxAttempts));
  // CAP_BENCH_CPU_PROF=DIR: each kernel writes a V8 CPU profile into DIR when it exits (summarise with
  // `node bench/profile-summary.mjs DIR/*.cpuprofile`).
  const profDir = process.env.CAP_BENCH_CPU_PROF;
  const profArgs = profDir ? ["--cpu-prof", "--cpu-prof-dir", profDir] : [];
  const handle = startChild(name, process.execPath, [...profArgs, ...args], {
    cwd: kernelRoot,
    env: { ...BENCH_LIMITS, ...env },
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitUntil(`${name} /healthz`, () => healthy(baseUrl, "/healthz"), { handle });
  return { handle, baseUrl, port };
}
