/**
 * `cap-kernel` refusing bad invocations as a user meets them, in an empty working directory: each case is
 * argv (and environment) → exit code, a sentence on stderr that says what to do, no stack trace, and no
 * file left behind — a command that acts on existing data never creates a database.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN } from "../helpers/process.js";

interface Case {
  argv: string[];
  env?: Record<string, string>;
  code: number;
  stderr: string[];
}

let busy: Server;
let busyPort: number;

beforeAll(async () => {
  busy = createServer();
  await new Promise<void>((r) => busy.listen(0, "127.0.0.1", r));
  busyPort = (busy.address() as { port: number }).port;
});
afterAll(() => new Promise<void>((r) => busy.close(() => r())));

function run(argv: string[], env: Record<string, string> = {}) {
  const cwd = mkdtempSync(join(tmpdir(), "cap-cli-errors-"));
  const child = spawn(process.execPath, [BIN, ...argv], {
    cwd,
    env: { ...process.env, CAP_DB: "", CAP_PORT: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  return new Promise<{ code: number | null; stdout: string; stderr: string; files: string[] }>((resolve) =>
    child.on("close", (code) => resolve({ code, stdout, stderr, files: readdirSync(cwd) })),
  );
}

const noDb = (where: string) => [`no database at ${where}`, "cap-kernel provision", "cap-kernel serve"];
const byDefault = noDb(".cap-kernel/kernel.db (the default --db sqlite:.cap-kernel/kernel.db)");

const cases: Record<string, () => Case> = {
  "dead-letters list without --db names the default it did not create": () => ({
    argv: ["dead-letters", "list"],
    code: 1,
    stderr: byDefault,
  }),
  "dead-letters list with a missing --db names that file": () => ({
    argv: ["dead-letters", "list", "--db", "sqlite:missing.db"],
    code: 1,
    stderr: noDb("missing.db (--db sqlite:missing.db)"),
  }),
  "dead-letters requeue names the missing default": () => ({
    argv: ["dead-letters", "requeue", "evt_0"],
    code: 1,
    stderr: byDefault,
  }),
  "tokens revoke with CAP_DB naming a missing file says it came from CAP_DB": () => ({
    argv: ["tokens", "revoke", "tok_0"],
    env: { CAP_DB: "sqlite:from-env.db" },
    code: 1,
    stderr: noDb("from-env.db (CAP_DB=sqlite:from-env.db)"),
  }),
  "tokens issue does not create a database": () => ({
    argv: ["tokens", "issue", "--agent", "a", "--pod", "p"],
    code: 1,
    stderr: byDefault,
  }),
  "emit does not create a database": () => ({
    argv: ["emit", "--agent", "a", "--pod", "p", "--type", "task.assigned"],
    code: 1,
    stderr: byDefault,
  }),
  "provision with a malformed --agent fails before creating a database": () => ({
    argv: ["provision", "--agent", "no-pod-here"],
    code: 1,
    stderr: ["--agent must look like name[:instanceId]@pod"],
  }),
  "serve with a non-numeric --port fails before creating a database": () => ({
    argv: ["serve", "--port", "http"],
    code: 1,
    stderr: ['--port must be an integer from 0 to 65535, got "http"'],
  }),
  "serve with an unknown --profile names the profiles": () => ({
    argv: ["serve", "--profile", "prod"],
    code: 1,
    stderr: ["--profile must be one of cap, production"],
  }),
  "serve on a busy port names host:port and how to choose another": () => ({
    argv: ["serve", "--db", "sqlite::memory:", "--port", String(busyPort)],
    code: 1,
    stderr: [`127.0.0.1:${busyPort} is already in use`, "--port N or CAP_PORT=N", "--port 0"],
  }),
  "serve on a busy port from CAP_PORT says the same": () => ({
    argv: ["serve", "--db", "sqlite::memory:"],
    env: { CAP_PORT: String(busyPort) },
    code: 1,
    stderr: [`127.0.0.1:${busyPort} is already in use`],
  }),
  "serve with CAP_ACCELERATE neither 1 nor 0 says which values it takes": () => ({
    argv: ["serve", "--port", "0", "--db", "sqlite::memory:"],
    env: { CAP_ACCELERATE: "maybe" },
    code: 1,
    stderr: ['CAP_ACCELERATE must be 1 or 0, got "maybe"'],
  }),
  "an unknown command is refused with the help hint": () => ({
    argv: ["dead-letter", "list"],
    code: 1,
    stderr: ["unknown command 'dead-letter'"],
  }),
};

describe("cap-kernel errors", () => {
  it.each(Object.keys(cases))("%s", async (name) => {
    const c = cases[name]!();
    const r = await run(c.argv, c.env);
    expect(r.code).toBe(c.code);
    for (const s of c.stderr) expect(r.stderr).toContain(s);
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(r.stdout).toBe("");
    expect(r.files).toEqual([]);
  });
});
