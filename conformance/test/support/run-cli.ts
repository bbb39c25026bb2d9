/** Test helper: run the `cap-conformance` CLI in-process and capture what it prints. */
import { main } from "../../src/cli.js";

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, {
    stdout: { write: (s) => out.push(s), isTTY: false },
    stderr: { write: (s) => err.push(s), isTTY: false },
    env,
  });
  return { code, stdout: out.join(""), stderr: err.join("") };
}
