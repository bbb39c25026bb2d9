#!/usr/bin/env node
/**
 * `cap-kernel`: the reference kernel's command line (commander; `--help` on every command).
 * serve | provision | emit | dead-letters list|requeue | tokens issue|revoke | demo.
 */
import { Command, Option } from "commander";
import { LIMIT_FLAGS } from "./cli/limit-flags.js";
import { DEFAULT_DB, DEMO_DB } from "./cli/settings.js";

import { kernelVersion } from "./version.js";

// Command implementations load on use, so `--help` answers without loading the kernel.
const serveCommand = async (f: object) => (await import("./cli/serve.js")).serveCommand(f);
const demoCommand = async (f: object) => (await import("./cli/demo.js")).demoCommand(f);
const provisionCommand = async (f: object) => (await import("./cli/provision.js")).provisionCommand(f);
const emitCommand = async (f: object) => (await import("./cli/operate.js")).emitCommand(f as never);
const deadLettersListCommand = async (f: object) =>
  (await import("./cli/operate.js")).deadLettersListCommand(f);
const deadLettersRequeueCommand = async (id: string, f: object) =>
  (await import("./cli/operate.js")).deadLettersRequeueCommand(id, f);
const tokensIssueCommand = async (f: object) => (await import("./cli/operate.js")).tokensIssueCommand(f);
const tokensRevokeCommand = async (id: string, f: object) =>
  (await import("./cli/operate.js")).tokensRevokeCommand(id, f);

const collect = (v: string, prev: string[] = []) => [...prev, v];

/** `existing`: the command acts on a kernel's data and never creates a database (cli/operate.ts). */
function dbOptions(cmd: Command, db: { default?: string; existing?: boolean } = {}): Command {
  const note = db.existing ? "; must exist" : "";
  return cmd
    .addOption(
      new Option(
        "--db <url>",
        `store: sqlite:PATH | sqlite::memory: | postgres://… (env CAP_DB; default ${db.default ?? DEFAULT_DB}${note})`,
      ),
    )
    .addOption(
      new Option("--lease-seconds <n>", "lease length in seconds (env CAP_LEASE_SECONDS; default 30)"),
    )
    .addOption(
      new Option("--max-attempts <n>", "deliveries before an event fails (env CAP_MAX_ATTEMPTS; default 5)"),
    );
}

function limitOptions(cmd: Command): Command {
  for (const l of LIMIT_FLAGS)
    cmd.addOption(new Option(`${l.flag} <n>`, `${l.help} (env ${l.env}; default ${l.default})`));
  return cmd;
}

function serverOptions(cmd: Command, defaults: { db?: string; logLevel?: string } = {}): Command {
  return dbOptions(cmd, { ...(defaults.db ? { default: defaults.db } : {}) })
    .addOption(new Option("--port <n>", "port (env CAP_PORT; default 7070)"))
    .addOption(new Option("--host <host>", "interface (env CAP_HOST; default 127.0.0.1)"))
    .addOption(
      new Option(
        "--log-level <level>",
        `pino level (env CAP_LOG_LEVEL; default ${defaults.logLevel ?? "info"})`,
      ),
    )
    .addOption(
      new Option(
        "--max-connections <n>",
        "open connections in all, from every client (env CAP_MAX_CONNECTIONS; default the open-file limit less 256)",
      ),
    )
    .addOption(
      new Option(
        "--docs-dir <path>",
        "the built docs site served at /docs/ (env CAP_DOCS_DIR; default the copy @commonly/cap-console ships; in a clone: docs/site)",
      ),
    )
    .addOption(
      new Option(
        "--no-accelerate",
        "without accelerators: the plain store and no token cache, the reference path, slower; CAP_ACCELERATE=0 is the same (env CAP_ACCELERATE; default 1)",
      ),
    )
    .addOption(
      new Option(
        "--profile <name>",
        "wire profile: cap (CAP v1 exactly) | production (the production kernel's dialect, for deployed drivers) (env CAP_PROFILE; default cap)",
      ),
    );
}

const program = new Command()
  .name("cap-kernel")
  .description("The CAP v1 reference kernel: embedded SQLite by default, PostgreSQL for several replicas.")
  .version(kernelVersion())
  .showHelpAfterError();

limitOptions(
  serverOptions(
    program
      .command("serve")
      .description("Serve CAP v1 and the admin surface over HTTP.")
      .addHelpText(
        "after",
        '\nOutput: stdout carries only JSON log lines (one per line, pino); stderr only lines for a person\n(the banner, warnings, shutdown), each starting "cap-kernel:". A new SQLite file is announced on stderr.',
      ),
  ),
).action(serveCommand);

dbOptions(
  program
    .command("provision")
    .description("Create users, pods, agents, installations and tokens in the database; print them as JSON.")
    .option(
      "--file <path>",
      "a JSON spec: {users:[{name,admin}], pods:[{name,owner,members}], agents:[{name,instanceId,pods,installedBy,messagePosted}]}",
    )
    .option("--admin <name>", "the admin user to create (flags mode; default admin)")
    .option("--pod <name>", "a pod to create (repeatable)", collect)
    .option(
      "--agent <spec>",
      "name[:instanceId]@pod[,pod…] to publish, install and issue a token for (repeatable)",
      collect,
    )
    .option(
      "--for-conformance",
      "print the conformance fixture JSON (two agents share a pod, a third in another)",
    )
    .option("--base-url <url>", "baseUrl written into the fixture (default from CAP_HOST/CAP_PORT)"),
).action(provisionCommand);

dbOptions(
  program
    .command("emit")
    .description("Inject an event of any type for an installed agent (no server needed).")
    .requiredOption("--agent <name>", "agent name")
    .option("--instance <id>", "instance id (default: default)")
    .requiredOption("--pod <pod>", "pod id or unique name")
    .requiredOption("--type <type>", "event type, e.g. task.assigned")
    .option("--payload <json>", "payload JSON object (default {})"),
  { existing: true },
).action(emitCommand);

const dead = program.command("dead-letters").description("Inspect and requeue failed events.");
dbOptions(
  dead
    .command("list")
    .description("List failed events, newest first.")
    .option("--pod <pod>", "pod id or unique name")
    .option("--agent <name>", "agent name")
    .option("--instance <id>", "instance id")
    .option("--limit <n>", "at most this many (default 100)"),
  { existing: true },
).action(deadLettersListCommand);
dbOptions(dead.command("requeue <eventId>").description("Make a failed event pending again."), {
  existing: true,
}).action(deadLettersRequeueCommand);

const tokens = program.command("tokens").description("Issue and revoke tokens.");
dbOptions(
  tokens
    .command("issue")
    .description("Issue a runtime token for an installed agent (or, with --user only, a user API token).")
    .option("--pod <pod>", "pod id or unique name")
    .option("--agent <name>", "agent name")
    .option("--instance <id>", "instance id (default: default)")
    .option("--issued-by <user>", "issuing human, id or name (default: the oldest kernel admin)")
    .option("--user <user>", "issue a user API token for this user instead")
    .option("--label <label>", "label"),
  { existing: true },
).action(tokensIssueCommand);
dbOptions(tokens.command("revoke <tokenId>").description("Revoke a runtime token."), {
  existing: true,
}).action(tokensRevokeCommand);

serverOptions(
  program
    .command("demo")
    .description(
      "Serve with a demo pod and an echo driver that answers @echo; print tokens. Starts clean on each run.",
    )
    .option(
      "--driver <command>",
      "run this CAP driver for agent echo instead of the built-in one (gets CAP_URL and CAP_TOKEN)",
    )
    .option(
      "--keep",
      `reuse ${DEMO_DB.slice("sqlite:".length)} from an earlier run instead of starting clean`,
    )
    .addHelpText(
      "after",
      `\nA database named by --db or CAP_DB is never deleted: it is reused, and the first line says so.
Output: lines for a person on stdout; the kernel's JSON logs (warnings and worse) on stderr.

Examples:
  cap-kernel demo
  cap-kernel demo --keep
  cap-kernel demo --driver 'node examples/echo-ts/dist/echo.js'`,
    ),
  { db: DEMO_DB, logLevel: "warn" },
).action(demoCommand);

program.parseAsync(process.argv).catch((err: Error) => {
  process.stderr.write(`cap-kernel: ${err.message}\n`);
  process.exit(1);
});
