import { describe, expect, it } from "vitest";
import {
  AdapterError,
  type AdapterErrorKind,
  classifyFailure,
  isAdapterError,
} from "../../src/adapters/adapter-error.js";

describe("classifyFailure", () => {
  const cases: Array<{
    name: string;
    given: { exitCode: number | null; stderr?: string; stdout?: string };
    want: AdapterErrorKind;
  }> = [
    {
      name: "claude's 429 API error",
      given: { exitCode: 1, stderr: 'API Error: 429 {"type":"rate_limit_error"}' },
      want: "rate_limit",
    },
    {
      name: "plain 'rate limit' text",
      given: { exitCode: 1, stderr: "Error: rate limit reached, retry later" },
      want: "rate_limit",
    },
    {
      name: "'Too Many Requests'",
      given: { exitCode: 1, stderr: "HTTP Too Many Requests" },
      want: "rate_limit",
    },
    {
      name: "Anthropic overloaded",
      given: { exitCode: 1, stderr: "API Error: 529 Overloaded" },
      want: "rate_limit",
    },
    {
      name: "rate_limit_error with underscore",
      given: { exitCode: 1, stdout: '{"type":"rate_limit_error"}' },
      want: "rate_limit",
    },
    {
      name: "OpenAI insufficient_quota beats its 429",
      given: { exitCode: 1, stderr: "429 insufficient_quota: You exceeded your current quota" },
      want: "quota",
    },
    {
      name: "Anthropic credit balance",
      given: { exitCode: 1, stdout: "Credit balance is too low" },
      want: "quota",
    },
    {
      name: "codex usage limit in JSONL",
      given: { exitCode: 1, stdout: '{"type":"error","message":"You\'ve hit your usage limit."}' },
      want: "quota",
    },
    {
      name: "402 payment required",
      given: { exitCode: 1, stderr: "status 402 Payment Required" },
      want: "quota",
    },
    {
      name: "not logged in",
      given: { exitCode: 1, stderr: "You are not logged in. Run codex login." },
      want: "configuration",
    },
    {
      name: "invalid api key",
      given: { exitCode: 1, stderr: "Invalid API key · Please run /login" },
      want: "configuration",
    },
    {
      name: "invalid_api_key code",
      given: { exitCode: 1, stderr: '{"code":"invalid_api_key"}' },
      want: "configuration",
    },
    {
      name: "authentication failure",
      given: { exitCode: 1, stderr: "authentication_error: invalid x-api-key" },
      want: "configuration",
    },
    {
      name: "401 unauthorized",
      given: { exitCode: 1, stderr: "Request failed: 401 Unauthorized" },
      want: "configuration",
    },
    {
      name: "auth wins over a rate-limit word",
      given: { exitCode: 1, stderr: "authentication failed (rate limit headers missing)" },
      want: "configuration",
    },
    {
      name: "shell's command not found",
      given: { exitCode: 127, stderr: "bot.sh: line 2: jq: command not found" },
      want: "not_found",
    },
    { name: "not executable", given: { exitCode: 126, stderr: "permission denied" }, want: "configuration" },
    {
      name: "a crash",
      given: { exitCode: 3, stderr: "panic: fake crash (segmentation fault)" },
      want: "runtime",
    },
    { name: "silent non-zero exit", given: { exitCode: 1 }, want: "runtime" },
    { name: "killed by a signal", given: { exitCode: null, stderr: "" }, want: "runtime" },
    {
      name: "a number merely containing 429",
      given: { exitCode: 1, stderr: "processed 14290 rows, then failed" },
      want: "runtime",
    },
    {
      name: "a word merely containing quota",
      given: { exitCode: 1, stderr: "unexpected token in quotas.yaml" },
      want: "runtime",
    },
    {
      name: "only the tail is read: an early 'quota' in a long output is ignored",
      given: { exitCode: 1, stdout: `quota ${"x".repeat(9000)}`, stderr: "segfault" },
      want: "runtime",
    },
  ];
  it.each(cases)("classifies $name as $want", ({ given, want }) => {
    expect(
      classifyFailure({ exitCode: given.exitCode, stderr: given.stderr ?? "", stdout: given.stdout ?? "" }),
    ).toBe(want);
  });
});

describe("AdapterError", () => {
  it("carries kind, exit code, signal and stderr tail", () => {
    const err = new AdapterError("claude exited with code 1", {
      kind: "rate_limit",
      exitCode: 1,
      signal: null,
      stderrTail: "429",
    });
    expect(err).toBeInstanceOf(Error);
    expect(err).toMatchObject({
      name: "AdapterError",
      kind: "rate_limit",
      exitCode: 1,
      signal: null,
      stderrTail: "429",
    });
    expect(err.aborted).toBe(false);
  });

  it("is recognised by brand, so instanceof survives a second copy of the module", () => {
    const foreign = Object.assign(new Error("x"), { [Symbol.for("commonly.cli.AdapterError")]: true });
    expect(isAdapterError(foreign)).toBe(true);
    expect(foreign instanceof AdapterError).toBe(true);
    expect(new Error("plain") instanceof AdapterError).toBe(false);
    expect(isAdapterError(null)).toBe(false);
  });
});
