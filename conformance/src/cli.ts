/**
 * The `cap-conformance` command line: `run` and `list`. Parses flags with commander, resolves settings
 * (flags > CAP_CONFORMANCE_* env > fixture), runs the suite, prints progress and writes reports. Exit
 * codes: 0 every applicable MUST passed; 1 a MUST failed (or a warning under --strict, or a stale
 * baseline entry); 2 configuration or harness error; 3 incomplete.
 */
import { Command, CommanderError, Option } from "commander";
import { allChecks } from "./checks/index.js";
import { ConfigError } from "./config/errors.js";
import { type Flags, reportFormats, resolveSettings } from "./config/settings.js";
import { runDriverCommand } from "./driver/cli.js";
import { driverChecks } from "./driver/scenarios/index.js";
import { features } from "./features.js";
import { type Io, processIo } from "./io.js";
import { renderList } from "./list.js";
import { writeReports } from "./reports/index.js";
import { progress, renderFailures, renderSummary } from "./reports/terminal.js";
import { loadManifest } from "./requirements.js";
import { runSuite } from "./runner/run-suite.js";
import { toolVersion } from "./version.js";

const collect = (value: string, previous: string[] = []) => [
  ...previous,
  ...value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean),
];

async function run(flags: Flags, io: Io): Promise<number> {
  const settings = await resolveSettings(flags, io.env);
  const report = await runSuite({ settings, checks: allChecks, hooks: progress(io.stdout) });
  await writeReports(report, settings.reports);
  io.stdout.write(renderFailures(report, io.stdout.isTTY));
  io.stdout.write(renderSummary(report, io.stdout.isTTY));
  for (const r of settings.reports) io.stdout.write(`wrote ${r.format} report to ${r.path}\n`);
  return report.summary.exitCode;
}

function program(io: Io, done: (code: Promise<number>) => void): Command {
  const cmd = new Command("cap-conformance")
    .description(
      "The black-box CAP v1 conformance suite: point it at a kernel, get a verdict per requirement.",
    )
    .version(toolVersion)
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });
  cmd
    .command("run")
    .description("run the suite against a kernel")
    .option("--fixture <file>", "fixture JSON (what `cap-kernel provision --for-conformance` prints)")
    .option("--url <url>", "kernel base URL; repeat for replicas of one kernel (used in rotation)", collect)
    .option(
      "--only <pattern>",
      "run only checks whose id, family or requirement id matches (glob, repeatable)",
      collect,
    )
    .option(
      "--skip <pattern>",
      "skip checks whose id, family or requirement id matches (glob, repeatable)",
      collect,
    )
    .addOption(new Option("--level <level>", "lowest requirement level to run").choices(["must", "should"]))
    .option("--strict", "SHOULD failures fail the run")
    .option("--lease-seconds <n>", "lease duration when the kernel has no /info")
    .option("--max-attempts <n>", "maxAttempts when the kernel has no /info")
    .option("--time-scale <x>", "multiply every deadline and tolerance (slow CI)")
    .option("--baseline <file>", "expected-failures.yaml: known failures that do not fail the run")
    .option("--report <format=path>", `write a report (${reportFormats.join(", ")}); repeatable`, collect)
    .option("--trace", "record every HTTP exchange in the reports")
    .option(
      "--trigger-cmd <cmd>",
      "command that makes the kernel enqueue an event for {agent} carrying {nonce}",
    )
    .option("--store-down-cmd <cmd>", "command that makes the kernel's store unavailable (outage checks)")
    .option("--store-up-cmd <cmd>", "command that makes the kernel's store available again")
    .option(
      "--claim <feature>",
      `claim an optional feature (${features.join(", ")}); its checks become mandatory`,
      collect,
    )
    .option("--canary-host <host>", "address the pull-only canary listens on and plants in URLs")
    .option("--requirements <file>", "requirements manifest (default: the one in @commonly/cap-spec)")
    .action((flags: Flags) => done(run(flags, io)));
  cmd
    .command("driver")
    .description(
      "play the kernel and prove a driver right: start it per scenario (--command) or wait for yours (--wait)",
    )
    .option(
      "--command <cmd>",
      "shell command that starts the driver (CAP_URL, CAP_TOKEN, CAP_POD_ID in its env)",
    )
    .option("--wait", "print CAP_URL, CAP_TOKEN and CAP_POD_ID and wait for a driver you start yourself")
    .option(
      "--only <pattern>",
      "run only checks whose id, family or requirement id matches (glob, repeatable)",
      collect,
    )
    .option(
      "--skip <pattern>",
      "skip checks whose id, family or requirement id matches (glob, repeatable)",
      collect,
    )
    .addOption(new Option("--level <level>", "lowest requirement level to run").choices(["must", "should"]))
    .option("--strict", "SHOULD failures fail the run")
    .option("--lease-seconds <n>", "lease of the kernel the suite plays (default 1)")
    .option("--max-attempts <n>", "maxAttempts of the kernel the suite plays (default 5)")
    .option("--time-scale <x>", "multiply every deadline, window and tolerance (slow CI)")
    .option(
      "--startup-timeout <seconds>",
      "how long the driver may take to make its first poll (default 15; --wait: 300)",
    )
    .option("--baseline <file>", "expected-failures.yaml: known failures that do not fail the run")
    .option("--report <format=path>", `write a report (${reportFormats.join(", ")}); repeatable`, collect)
    .option("--trace", "record every exchange of every scenario in the reports")
    .option(
      "--claim <feature>",
      "claim an optional feature the driver implements (trace-context); its scenarios run and bind it",
      collect,
    )
    .option("--requirements <file>", "requirements manifest (default: the one in @commonly/cap-spec)")
    .action((flags) => done(runDriverCommand(flags, io)));
  cmd
    .command("list")
    .description("list the checks, the requirement ids they verify and their levels")
    .option("--json", "machine-readable output")
    .option("--requirements <file>", "requirements manifest (default: the one in @commonly/cap-spec)")
    .action((o: { json?: boolean; requirements?: string }) => done(list(o, io)));
  return cmd;
}

async function list(o: { json?: boolean; requirements?: string }, io: Io): Promise<number> {
  const manifest = await loadManifest(o.requirements);
  io.stdout.write(renderList(allChecks, driverChecks, manifest, o.json ?? false));
  return 0;
}

/** Run the CLI with `argv` (without node and script); resolves to the exit code. */
export async function main(argv: string[], io: Io = processIo()): Promise<number> {
  let pending: Promise<number> | undefined;
  try {
    await program(io, (p) => {
      pending = p;
    }).parseAsync(argv, { from: "user" });
    return pending ? await pending : 0;
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    if (e instanceof ConfigError) {
      io.stderr.write(`cap-conformance: ${e.message}\n`);
      return 2;
    }
    io.stderr.write(`cap-conformance: harness error: ${(e as Error)?.stack ?? String(e)}\n`);
    return 2;
  }
}
