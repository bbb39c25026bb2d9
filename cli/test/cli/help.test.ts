/** Every command's --help carries examples, and --version answers, from the built bin (as a user sees it). */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { COMMONLY_BIN } from "../helpers/commonly.js";

const run = (args: string[]) =>
  promisify(execFile)(process.execPath, [COMMONLY_BIN, ...args], { env: { ...process.env, NO_COLOR: "1" } });

describe("commonly --help", () => {
  it.each([
    [[]],
    [["login"]],
    [["agent", "attach"]],
    [["agent", "run"]],
    [["agent", "logs"]],
    [["agent", "detach"]],
    [["agent", "list"]],
  ])("%j shows usage and examples", async (command) => {
    const { stdout } = await run([...command, "--help"]);
    expect(stdout).toMatch(/^Usage: commonly/);
    expect(stdout).toContain("Examples:");
    expect(stdout).toContain(`commonly ${command.join(" ")}`.trim());
  });

  it("exits 2 on an unknown option, with the usage", async () => {
    const err = await run(["agent", "run", "x", "--bogus"]).catch((e: { code: number; stderr: string }) => e);
    expect(err).toMatchObject({ code: 2 });
    expect((err as { stderr: string }).stderr).toContain("unknown option '--bogus'");
  });
});

describe("commonly --version", () => {
  it.each([["--version"], ["-V"]])("%s prints the version in the package's package.json", async (flag) => {
    const { version } = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
    const { stdout } = await run([flag]);
    expect(stdout).toBe(`${version}\n`);
  });
});
