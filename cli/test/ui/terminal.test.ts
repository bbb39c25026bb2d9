import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { createTerminal, preview } from "../../src/ui/terminal.js";

function stream(isTTY: boolean) {
  const s = new PassThrough() as PassThrough & { isTTY: boolean; columns: number; text(): string };
  let text = "";
  s.on("data", (c) => {
    text += c;
  });
  s.isTTY = isTTY;
  s.columns = 80;
  // What ora needs of a tty.WriteStream.
  Object.assign(s, { cursorTo: () => true, clearLine: () => true, moveCursor: () => true });
  s.text = () => text;
  return s;
}

describe("terminal output", () => {
  it("prints plain lines and no spinner when not interactive (piped, CI)", () => {
    const out = stream(false);
    const term = createTerminal({ stdout: out as never, stderr: stream(false) as never, interactive: false });
    const spinner = term.spin("[a] claude is working…");
    term.line("[a] → posted (12 bytes)");
    spinner.stop();
    expect(out.text()).toBe("[a] → posted (12 bytes)\n");
  });

  it("draws a spinner while a CLI runs when interactive, and clears it around lines", () => {
    const out = stream(true);
    const term = createTerminal({ stdout: out as never, stderr: stream(false) as never, interactive: true });
    const spinner = term.spin("claude is working…");
    term.line("[a] lease renewed");
    spinner.stop();
    expect(out.text()).toContain("claude is working…");
    expect(out.text()).toContain("[a] lease renewed\n");
    // ora hides the cursor and erases its line: escape sequences only a terminal should get.
    expect(out.text()).toContain("\u001b[");
  });

  it("sends a line to stderr only when asked", () => {
    const out = stream(false);
    const err = stream(false);
    const term = createTerminal({ stdout: out as never, stderr: err as never, interactive: false });
    term.line("commonly: boom", "bad", "stderr");
    expect(err.text()).toContain("commonly: boom");
    expect(out.text()).toBe("");
  });

  it("previews text as one quoted line of bounded length", () => {
    expect(preview("a\n  b")).toBe('"a b"');
    expect(preview("x".repeat(100), 10)).toBe(`"${"x".repeat(9)}…"`);
  });
});
