/** Test helper: run the `cap-conformance` CLI in-process and capture what it prints. */
import { main } from "../../src/cli.js";

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  const code = await main(args, {
    stdout: { write: (s) => void (stdout += s), isTTY: false },
    stderr: { write: (s) => void (stderr += s), isTTY: false },
    env,
  });
  return { code, stdout, stderr };
}
