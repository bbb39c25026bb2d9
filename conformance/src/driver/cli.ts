/**
 * `cap-conformance driver`: resolve the settings, run the driver suite with live progress (and, under
 * --wait, the environment to start the driver with), print failures and the verdict, write the reports.
 * Returns the exit code; configuration problems throw ConfigError (exit 2).
 */
import type { Io } from "../io.js";
import { writeReports } from "../reports/index.js";
import { progress, renderFailures, renderSummary } from "../reports/terminal.js";
import { runDriverSuite } from "./run-driver-suite.js";
import { driverChecks } from "./scenarios/index.js";
import { type DriverFlags, resolveDriverSettings } from "./settings.js";

export async function runDriverCommand(flags: DriverFlags, io: Io): Promise<number> {
  const settings = resolveDriverSettings(flags, io.env);
  const report = await runDriverSuite({
    settings,
    checks: driverChecks,
    hooks: {
      ...progress(io.stdout),
      onWait(env) {
        io.stdout.write(
          `Start your driver with this environment (the suite waits ${settings.startupSeconds} s for its first poll):\n\n${Object.entries(
            env,
          )
            .map(([k, v]) => `export ${k}='${v}'`)
            .join("\n")}\n\n`,
        );
      },
    },
  });
  await writeReports(report, settings.reports);
  io.stdout.write(renderFailures(report, io.stdout.isTTY));
  io.stdout.write(renderSummary(report, io.stdout.isTTY));
  for (const r of settings.reports) io.stdout.write(`wrote ${r.format} report to ${r.path}\n`);
  return report.summary.exitCode;
}
