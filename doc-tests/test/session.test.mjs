/**
 * The session's `fake=` and `stop` attributes, on small pages run for real: a fake is on the PATH of its
 * own block only, and `stop` interrupts the background blocks (Ctrl-C) and judges how they ended.
 */
import { describe, expect, it } from "vitest";
import { parseBlocks } from "../src/blocks.mjs";
import { runPage } from "../src/session.mjs";

const page = (...blocks) =>
  parseBlocks(
    blocks.flatMap(([marker, body]) => [`<!-- runnable ${marker} -->`, "```sh", body, "```", ""]).join("\n"),
  )
    .filter((b) => b.shell)
    .map((b) => ({ ...b, file: "page.md" }));

const cases = [
  {
    name: "a fake=claude block finds the CLI tests' fake claude first on its PATH",
    blocks: [['cwd=empty fake=claude expect="Claude Code"', "claude --version"]],
    want: "",
  },
  {
    name: "the fake is gone from the next block's PATH, while the page's own variables carry",
    blocks: [
      ["cwd=empty fake=claude", 'mine=1; export PATH="$PWD/bin:$PATH"'],
      [
        "",
        'test "$mine" = 1; case ":$PATH:" in *fake-*) echo "still faked: $PATH"; exit 1;; esac; echo "$PATH"',
      ],
    ],
    want: "",
  },
  {
    name: "fake= names only commands the CLI tests fake",
    blocks: [["cwd=empty fake=no-such-cli", "true"]],
    want: /fake=no-such-cli: no /,
  },
  {
    name: "ready holds the page until a background block prints it",
    blocks: [
      ["cwd=empty background ready=up", "sleep 0.5; touch served; echo up; exec sleep 30"],
      ["", "test -f served"],
    ],
    want: "",
  },
  {
    name: "ready fails the page when the background block ends without printing it",
    blocks: [["cwd=empty background ready=up", "echo down"]],
    want: /^page\.md:2: never printed \/up\//,
  },
  {
    name: "stop presses Ctrl-C on a background block that stops cleanly on it",
    blocks: [
      [
        "cwd=empty background expect=ready",
        "trap 'echo stopped; exit 0' INT; echo ready; while :; do sleep 0.1; done",
      ],
      ["stop", "echo after"],
    ],
    want: "",
  },
  {
    name: "stop reports a background block that fails on Ctrl-C, with its line",
    blocks: [
      ["cwd=empty background expect=ready", "trap 'exit 3' INT; echo ready; while :; do sleep 0.1; done"],
      ["stop", "echo after"],
    ],
    want: /^page\.md:2: exit 3/,
  },
  {
    name: "stop accepts a background block that dies of the Ctrl-C, as a program without a handler does",
    blocks: [
      ["cwd=empty background expect=ready", "echo ready; exec sleep 30"],
      ["stop", "echo after"],
    ],
    want: "",
  },
  {
    name: "stop first waits for what the background block expects",
    blocks: [
      ["cwd=empty background timeout=2 expect=never-printed", "while :; do sleep 0.1; done"],
      ["stop", "echo after"],
    ],
    want: /^page\.md:2: output does not match \/never-printed\//,
  },
];

describe.concurrent("session attributes", () => {
  it.each(cases)("$name", async ({ blocks, want }) => {
    let error;
    try {
      error = (await runPage(page(...blocks))).error ?? "";
    } catch (e) {
      error = e.message;
    }
    if (want === "") expect(error).toBe("");
    else expect(error).toMatch(want);
  });
});
