/**
 * The help texts agree with each other and with the README: every command the top-level help lists has its
 * own help; a flag several commands share names one variable and one default everywhere (or the README
 * says which command differs); the README's settings table and limits table name each flag, variable,
 * default and command as `--help` does.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/process.js";

const README = readFileSync(join(dirname(fileURLToPath(import.meta.url)), "..", "..", "README.md"), "utf8");

interface Flag {
  env?: string;
  default?: string;
}

/** The commands a help text lists (without `help`). */
function commandsOf(help: string): string[] {
  const section = help.split(/\nCommands:\n/)[1] ?? "";
  return [...section.matchAll(/^ {2}([a-z-]+)/gm)].map((m) => m[1]!).filter((c) => c !== "help");
}

/** Each `--flag` of a help text with the variable and default its description names. */
function flagsOf(help: string): Map<string, Flag> {
  const options = (help.split(/\nOptions:\n/)[1] ?? "").split(/\n\n/)[0]!;
  const flags = new Map<string, Flag>();
  // An option starts at a line indented by two spaces; wrapped description lines are indented further.
  for (const entry of options.split(/\n(?= {2}-)/)) {
    const text = entry.replace(/\s+/g, " ").trim();
    const name = /(?:^|, )(--[a-z-]+)/.exec(text)?.[1];
    if (!name || name === "--help" || name === "--version") continue;
    const m = /\(env (CAP_[A-Z_]+); default (.+?)(?:; must exist)?\)$/.exec(text);
    flags.set(name, m ? { env: m[1]!, default: m[2]! } : {});
  }
  return flags;
}

/** Rows of the README table whose header starts with `first`, as cells without backticks. */
function tableRows(first: string): string[][] {
  const lines = README.split("\n");
  const start = lines.findIndex((l) => l.startsWith(`| ${first}`));
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    rows.push(
      line
        .split("|")
        .slice(1, -1)
        .map((c) => c.trim().replace(/`/g, "")),
    );
  }
  return rows;
}

const helps = new Map<string, string>();

beforeAll(async () => {
  const walk = async (path: string[]) => {
    const help = await cli([...path, "--help"]);
    helps.set(path.join(" "), help);
    for (const c of commandsOf(help)) await walk([...path, c]);
  };
  await walk([]);
}, 60_000);

const leaves = () => [...helps.keys()].filter((k) => k !== "" && commandsOf(helps.get(k)!).length === 0);

describe("cap-kernel --help", () => {
  it("lists every command, and each answers --help with its own usage line", () => {
    expect(leaves().sort()).toEqual(
      [
        "dead-letters list",
        "dead-letters requeue",
        "demo",
        "emit",
        "provision",
        "serve",
        "tokens issue",
        "tokens revoke",
      ].sort(),
    );
    for (const [path, help] of helps) expect(help).toMatch(new RegExp(`^Usage: cap-kernel ${path}`.trim()));
  });

  it("gives a shared flag one variable and one default, except the demo's own --db and --log-level", () => {
    const seen = new Map<string, { command: string } & Flag>();
    for (const command of leaves())
      for (const [name, flag] of flagsOf(helps.get(command)!)) {
        if (command === "demo" && (name === "--db" || name === "--log-level")) continue;
        const first = seen.get(name);
        if (!first) seen.set(name, { command, ...flag });
        else
          expect({ name, command, ...flag }).toEqual({
            name,
            command,
            env: first.env,
            default: first.default,
          });
      }
    expect(flagsOf(helps.get("demo")!).get("--db")?.default).toBe("sqlite:.cap-kernel/demo.db");
    expect(flagsOf(helps.get("demo")!).get("--log-level")?.default).toBe("warn");
  });

  it("agrees with the README's settings table: flag, variable, default and commands", () => {
    const rows = tableRows("flag ");
    expect(rows.length).toBeGreaterThan(5);
    const all = leaves();
    for (const [flag, env, defaults, commands] of rows) {
      const [main, demo] = /^(.*?)(?: \(demo: (.*)\))?$/.exec(defaults!)!.slice(1);
      const where = commands === "all" ? all : commands!.split(", ");
      expect({ flag, in: all.filter((c) => flagsOf(helps.get(c)!).has(flag!)).sort() }).toEqual({
        flag,
        in: [...where].sort(),
      });
      for (const c of where) {
        const f = flagsOf(helps.get(c)!).get(flag!);
        expect({ flag, command: c, ...f }).toEqual({
          flag,
          command: c,
          env,
          default: c === "demo" && demo ? demo : main,
        });
      }
    }
    // Every flag with a variable is in one of the README's two tables.
    const documented = new Set(
      [...rows, ...tableRows("limit ")].map((r) => r.find((c) => c.startsWith("--"))?.split(" ")[0]),
    );
    const withVariable = new Set(
      all.flatMap((c) => [...flagsOf(helps.get(c)!)].filter(([, f]) => f.env).map(([n]) => n.split(" ")[0]!)),
    );
    expect([...withVariable].filter((n) => !documented.has(n))).toEqual([]);
  });

  it("agrees with the README's limits table: each limit's flag, variable and default", () => {
    const serve = flagsOf(helps.get("serve")!);
    const rows = tableRows("limit ");
    expect(rows.length).toBeGreaterThan(10);
    for (const [, def, flagCell] of rows) {
      const [, flag, env] = /^(--[a-z-]+) \((CAP_[A-Z_]+)\)$/.exec(flagCell!)!;
      expect({ flag, ...serve.get(flag!) }).toEqual({ flag, env, default: def!.replace(/,/g, "") });
    }
  });
});
