/**
 * `commonly login`: check a kernel URL and a human API token (`GET /api/users/me`), then save them
 * as an instance in config.json (0600) and make it the default. The token comes from --token,
 * COMMONLY_USER_TOKEN, a hidden prompt on a terminal, or stdin when piped — never from a log.
 */
import { createInterface } from "node:readline";
import { CliError } from "../errors.js";
import { createAdminApi } from "../kernel/admin-api.js";
import { setInstance } from "../state/config.js";
import { configPath } from "../state/home.js";
import { tildify } from "../ui/paths.js";
import { check, type Terminal } from "../ui/terminal.js";

export interface LoginFlags {
  url: string;
  token?: string;
  instance?: string;
}

async function readHidden(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  const out = rl as unknown as { _writeToOutput?: (s: string) => void };
  process.stderr.write(question);
  out._writeToOutput = () => {};
  try {
    return await new Promise<string>((resolve) => rl.question("", resolve));
  } finally {
    rl.close();
    process.stderr.write("\n");
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

async function obtainToken(flags: LoginFlags): Promise<string> {
  const given = flags.token ?? process.env.COMMONLY_USER_TOKEN;
  const token = (
    given ?? (process.stdin.isTTY ? await readHidden("Human API token (cm_user_…): ") : await readStdin())
  ).trim();
  if (token === "") {
    throw new CliError(
      "usage",
      "no token given: pass --token <cm_user_…>, set COMMONLY_USER_TOKEN, or pipe it in",
    );
  }
  return token;
}

function defaultInstanceName(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    throw new CliError("usage", `--url must be an http(s) URL like http://127.0.0.1:7070; got "${url}"`);
  }
}

export async function login(home: string, flags: LoginFlags, term: Terminal): Promise<void> {
  const name = flags.instance ?? defaultInstanceName(flags.url);
  const url = flags.url.trim().replace(/\/+$/, "");
  const token = await obtainToken(flags);
  const me = await createAdminApi(url, token).me();
  await setInstance(home, name, { url, token }, { makeDefault: true });
  term.line(check(`Logged in to ${url} as ${me.name}${me.isAdmin ? " (kernel admin)" : ""}`));
  term.line(check(`Saved as instance '${name}' (the default) in ${tildify(configPath(home))}`));
}
