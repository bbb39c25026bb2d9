/**
 * `commonly agent logs <name> [--follow]`: prints the agent's local log, `logs/<name>-<date>.log`.
 * It reads files only — no token is loaded and no request is made, so looking at the logs can never
 * claim, lease or ack an event (the production `logs` polled /events and stole work). --follow
 * watches the file for appended lines and moves on to the next day's file when it appears.
 */
import { open, readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { CliError } from "../errors.js";
import { agentPaths, assertAgentName } from "../state/home.js";
import type { LogEntry } from "../state/logger.js";
import { loadToken } from "../state/tokens.js";
import { agentPrefix, type Terminal, type Tone } from "../ui/terminal.js";

export interface LogsFlags {
  follow?: boolean;
  lines?: number;
  json?: boolean;
}

const TONE: Record<string, Tone> = { debug: "dim", info: "plain", warn: "warn", error: "bad" };
const FOLLOW_EVERY_MS = 200;

/** The agent's log files, oldest first (the date in the name sorts). */
async function logFiles(home: string, name: string): Promise<string[]> {
  const dir = join(home, "logs");
  const prefix = `${name}-`;
  let files: string[];
  try {
    files = await readdir(dir);
  } catch {
    return [];
  }
  return files
    .filter((f) => f.startsWith(prefix) && /^\d{4}-\d{2}-\d{2}\.log$/.test(f.slice(prefix.length)))
    .sort()
    .map((f) => join(dir, f));
}

function render(line: string, json: boolean, term: Terminal): void {
  let entry: LogEntry | undefined;
  try {
    entry = json ? undefined : (JSON.parse(line) as LogEntry);
  } catch {
    entry = undefined;
  }
  if (!entry) {
    term.line(line);
    return;
  }
  const time = typeof entry.ts === "string" ? entry.ts.replace("T", " ").slice(0, 19) : "";
  const text = typeof entry.text === "string" ? entry.text : entry.msg;
  term.line(`${time} ${agentPrefix(entry.agent)} ${text}`, TONE[entry.level] ?? "plain");
}

export async function logs(
  home: string,
  name: string,
  flags: LogsFlags,
  term: Terminal,
  signal?: AbortSignal,
): Promise<void> {
  try {
    assertAgentName(name);
  } catch (err) {
    throw new CliError("usage", (err as Error).message);
  }
  const json = flags.json ?? false;
  const files = await logFiles(home, name);
  let current = files.at(-1);
  if (!current && !flags.follow) {
    if (!(await loadToken(home, name).catch(() => null))) {
      throw new CliError("not_attached", `no logs and no token file for '${name}' under ${home}`);
    }
    term.line(`no log lines yet for '${name}' (${agentPaths(home, name).log(new Date())})`, "dim", "stderr");
    return;
  }
  let offset = 0;
  if (current) {
    const text = await readFile(current, "utf8");
    offset = Buffer.byteLength(text);
    const lines = text.split("\n").filter(Boolean);
    for (const line of lines.slice(-(flags.lines ?? 50))) render(line, json, term);
  }
  if (!flags.follow) return;

  let partial = "";
  const drain = async (path: string) => {
    const size = (await stat(path).catch(() => null))?.size ?? 0;
    if (size < offset) offset = 0; // truncated or replaced
    if (size === offset) return;
    const fh = await open(path, "r");
    try {
      const buf = Buffer.alloc(size - offset);
      await fh.read(buf, 0, buf.length, offset);
      offset = size;
      const lines = (partial + buf.toString("utf8")).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines.filter(Boolean)) render(line, json, term);
    } finally {
      await fh.close();
    }
  };
  while (!signal?.aborted) {
    if (current) await drain(current);
    const newest = (await logFiles(home, name)).at(-1);
    if (newest && newest !== current) {
      if (current) await drain(current);
      current = newest;
      offset = 0;
      partial = "";
      continue;
    }
    await pause(FOLLOW_EVERY_MS, signal);
  }
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
