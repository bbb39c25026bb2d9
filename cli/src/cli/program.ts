/**
 * The `commonly` command line (commander): `login`, and `agent attach|run|logs|detach|list`, each
 * with examples in its --help. Parsing and the error → exit status mapping live here; every command
 * is a function in its own module that takes plain values, so tests can call them directly.
 */
import { readFileSync } from "node:fs";
import { Command, CommanderError, Option } from "commander";
import { ADAPTER_NAMES } from "../adapters/registry.js";
import { CliError } from "../errors.js";
import { resolveHome } from "../state/home.js";
import { parseDuration, parsePositiveInt } from "../ui/duration.js";
import { createTerminal, type Terminal } from "../ui/terminal.js";
import { attach } from "./attach.js";
import { detach } from "./detach.js";
import { list } from "./list.js";
import { login } from "./login.js";
import { logs } from "./logs.js";
import { run } from "./run.js";

const collect = (value: string, previous: string[] = []) => [...previous, value];

function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((l) => `  ${l}`).join("\n")}\n`;
}

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
    version: string;
  };
  return pkg.version;
}

export function buildProgram(term: Terminal, home: string): Command {
  const program = new Command()
    .name("commonly")
    .description(
      "Put a CLI you already have (claude, codex, gemini, cursor, any script) into a Commonly pod.",
    )
    .version(version())
    .exitOverride()
    .showHelpAfterError()
    .addHelpText(
      "after",
      `${examples(
        "commonly login --url http://127.0.0.1:7070 --token cm_user_…",
        "commonly agent attach claude --pod pod_3c1d2e --name my-claude",
        "commonly agent run my-claude",
      )}\nState lives in ${home} (set COMMONLY_HOME to move it).\n`,
    );

  program
    .command("login")
    .description("Save a kernel URL and your human API token (checked with the kernel first).")
    .requiredOption("--url <url>", "the kernel's URL, e.g. http://127.0.0.1:7070")
    .option(
      "--token <token>",
      "your user API token (cm_user_…); default $COMMONLY_USER_TOKEN, a prompt, or stdin",
    )
    .option("--instance <name>", "a name for this kernel (default: the URL's host)")
    .addHelpText(
      "after",
      examples(
        "commonly login --url http://127.0.0.1:7070 --token cm_user_…",
        "echo $TOKEN | commonly login --url https://kernel.example.com --instance work",
      ),
    )
    .action((flags) => login(home, flags, term));

  const agent = program.command("agent").description("Attach, run, inspect and detach wrapped CLIs.");

  agent
    .command("attach")
    .description("Register a local CLI as an agent in a pod and save its runtime token.")
    .argument("<cli>", `the CLI to wrap: ${ADAPTER_NAMES.join(", ")}`)
    .requiredOption("--pod <podId>", "the pod to join (you must be one of its admins)")
    .requiredOption("--name <name>", "the agent's name in the pod (1–64 of A-Z a-z 0-9 . _ -)")
    .option("--instance <name|url>", "which saved login to use (default: the last one)")
    .option("--instance-id <id>", "CAP instance id, to run the same name from several machines", "default")
    .option("--cwd <dir>", "working directory of the CLI (default: $TMPDIR/commonly-agents/<name>)")
    .option("--command <executable>", "cmd adapter: the executable (a name on PATH or a path)")
    .option(
      "--arg <arg>",
      "cmd adapter: one argument, repeatable; {prompt} is replaced by the prompt",
      collect,
    )
    .option("--no-memory", "cmd adapter: send the bare turn, without the memory preamble and instruction")
    .option("--version-flag", "cmd adapter: detect the script by running it with --version")
    .option("--force", "attach over an existing token file of the same name")
    .option(
      "--stop-note",
      'when a human stops a turn, post one "Stopped." note in the pod (default: post nothing)',
    )
    .addHelpText(
      "after",
      examples(
        "commonly agent attach claude --pod pod_3c1d2e --name my-claude",
        "commonly agent attach claude --pod pod_3c1d2e --name my-claude --stop-note",
        "commonly agent attach codex --pod pod_3c1d2e --name my-codex --instance work",
        "commonly agent attach stub --pod pod_3c1d2e --name my-stub",
        "commonly agent attach cmd --pod pod_3c1d2e --name wc --command ./bot.sh",
        'commonly agent attach cmd --pod pod_3c1d2e --name py --command python3 --arg bot.py --arg "{prompt}"',
      ),
    )
    .action((cli: string, flags) => attach(home, cli, flags, term));

  agent
    .command("run")
    .description("Run the agent's loop: wait for pod events, spawn the CLI, post its reply (ctrl+c to stop).")
    .argument("<name>", "an attached agent (or any name, with COMMONLY_AGENT_TOKEN + COMMONLY_API_URL set)")
    .addOption(
      new Option("--timeout <duration>", "kill a CLI turn after this long (300, 90s, 5m)").argParser((v) =>
        parseDuration(v, "--timeout"),
      ),
    )
    .addOption(
      new Option(
        "--poll-interval <duration>",
        "base of poll backoff and quick retries (default 5s)",
      ).argParser((v) => parseDuration(v, "--poll-interval")),
    )
    .addOption(
      new Option(
        "--wait <seconds>",
        "long-poll wait per request (default 20; 0 polls at the interval)",
      ).argParser((v) => parsePositiveInt(v, "--wait")),
    )
    .option("--cwd <dir>", "working directory of the CLI (overrides attach)")
    .addOption(
      new Option(
        "--cancel-grace <duration>",
        "when a turn is stopped (cancelled), SIGKILL the CLI this long after SIGTERM (default 5s)",
      ).argParser((v) => parseDuration(v, "--cancel-grace")),
    )
    .option("-v, --verbose", "also print debug lines (lease renewals, acks, timings)")
    .addHelpText(
      "after",
      `${examples(
        "commonly agent run my-claude",
        "commonly agent run my-claude --timeout 10m",
        "commonly agent run my-claude --cancel-grace 10s",
        "COMMONLY_AGENT_TOKEN=cm_agent_… COMMONLY_API_URL=http://127.0.0.1:7070 commonly agent run bot",
        "COMMONLY_ADAPTER=cmd COMMONLY_CMD=./bot.sh COMMONLY_AGENT_TOKEN=… COMMONLY_API_URL=… commonly agent run bot",
      )}\nThe default timeout is 5m. Exit codes: see docs/local-cli-driver.md.\n`,
    )
    .action((name: string, flags) => run(home, name, flags, term));

  agent
    .command("logs")
    .description("Print the agent's local log (never touches the kernel's queue).")
    .argument("<name>", "agent name")
    .option("-f, --follow", "keep printing lines as they are written")
    .addOption(
      new Option("-n, --lines <n>", "how many recent lines to print first (default 50)").argParser((v) =>
        parsePositiveInt(v, "--lines"),
      ),
    )
    .option("--json", "print the raw JSON lines")
    .addHelpText(
      "after",
      examples(
        "commonly agent logs my-claude",
        "commonly agent logs my-claude -f",
        "commonly agent logs my-claude --json -n 500",
      ),
    )
    .action(async (name: string, flags) => {
      const stop = new AbortController();
      const onSignal = () => stop.abort();
      process.once("SIGINT", onSignal);
      process.once("SIGTERM", onSignal);
      try {
        await logs(home, name, flags, term, stop.signal);
      } finally {
        process.off("SIGINT", onSignal);
        process.off("SIGTERM", onSignal);
      }
    });

  agent
    .command("detach")
    .description("Revoke the agent's token, uninstall it from its pod and remove its local state.")
    .argument("<name>", "agent name")
    .option("--local-only", "only forget the agent on this machine (when the kernel is gone)")
    .addHelpText(
      "after",
      examples("commonly agent detach my-claude", "commonly agent detach my-claude --local-only"),
    )
    .action((name: string, flags) => detach(home, name, flags, term));

  agent
    .command("list")
    .description("List the agents attached on this machine and whether they are running.")
    .option("--json", "print JSON")
    .addHelpText("after", examples("commonly agent list", "commonly agent list --json"))
    .action((flags) => list(home, flags, term));

  return program;
}

/** Runs the command line; resolves to the exit status. */
export async function main(argv: string[] = process.argv): Promise<number> {
  const term = createTerminal();
  const program = buildProgram(term, resolveHome());
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    if (err instanceof CliError) {
      term.line(`commonly: ${err.message}`, "bad", "stderr");
      return err.exitCode;
    }
    term.line(`commonly: unexpected error: ${(err as Error)?.stack ?? String(err)}`, "bad", "stderr");
    return 1;
  }
}
