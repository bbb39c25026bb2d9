/**
 * Where the CLI writes and what environment it reads: the real process, or a test's capture. Its own
 * module so the kernel and driver commands (cli.ts, driver/cli.ts) share it without importing each other.
 */
import type { Out } from "./reports/terminal.js";

export interface Io {
  stdout: Out;
  stderr: Out;
  env: NodeJS.ProcessEnv;
}

export const processIo = (): Io => ({
  stdout: { write: (s) => void process.stdout.write(s), isTTY: process.stdout.isTTY },
  stderr: { write: (s) => void process.stderr.write(s), isTTY: process.stderr.isTTY },
  env: process.env,
});
