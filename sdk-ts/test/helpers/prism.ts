/**
 * Prism (pinned 5.14.2) serving the generated CAP OpenAPI document as a stateless mock, spawned on a
 * free port: the same process `pnpm mock` starts. Resolves once Prism answers HTTP.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { eventually, freePort } from "@commonly/cap-kernel/testing";

const sdk = resolve(import.meta.dirname, "..", "..");
export const OPENAPI = resolve(sdk, "..", "spec", "generated", "cap-v1.openapi.yaml");

export interface RunningPrism {
  url: string;
  output: () => string;
  close: () => Promise<void>;
}

export async function startPrism(): Promise<RunningPrism> {
  const require = createRequire(join(sdk, "package.json"));
  const bin = join(dirname(require.resolve("@stoplight/prism-cli/package.json")), "dist", "index.js");
  const port = await freePort();
  let output = "";
  const child: ChildProcess = spawn(
    process.execPath,
    [bin, "mock", "-h", "127.0.0.1", "-p", String(port), OPENAPI],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout!.on("data", collect);
  child.stderr!.on("data", collect);
  const url = `http://127.0.0.1:${port}`;
  await eventually(
    async () => {
      if (child.exitCode !== null) throw new Error(`prism exited: ${output}`);
      await fetch(`${url}/api/agents/runtime/info`);
      return true;
    },
    `prism answers on ${url}`,
    { timeoutMs: 30_000, everyMs: 50 },
  );
  return {
    url,
    output: () => output,
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((r) => child.once("exit", () => r()));
      child.kill("SIGTERM");
      await exited;
    },
  };
}
