import { readFileSync, statSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createLogger, type LogEntry, REDACTED, redact, redactText } from "../../src/state/logger.js";
import { tempHome } from "../helpers/temp-home.js";

let t: ReturnType<typeof tempHome>;
beforeEach(() => {
  t = tempHome();
});
afterEach(() => t.cleanup());

const AGENT_TOKEN = `cm_agent_${"0123456789abcdef".repeat(4)}`;

describe("redaction", () => {
  it.each([
    [`token ${AGENT_TOKEN} used`, `token ${REDACTED} used`],
    ["user cm_user_abcDEF123 logged in", `user ${REDACTED} logged in`],
    ["Authorization: Bearer eyJhbGciOi.x-y_z", `Authorization: ${REDACTED}`],
    ["bearer abc123", REDACTED],
    ["nothing secret here", "nothing secret here"],
  ])("%j → %j", (given, want) => {
    expect(redactText(given)).toBe(want);
  });

  it("redacts nested values and token-like keys, and survives cycles", () => {
    const value: Record<string, unknown> = {
      runtimeToken: "anything",
      headers: { authorization: "Basic x" },
      list: [`a ${AGENT_TOKEN}`],
      count: 3,
    };
    value.self = value;
    expect(redact(value)).toEqual({
      runtimeToken: REDACTED,
      headers: { authorization: REDACTED },
      list: [`a ${REDACTED}`],
      count: 3,
      self: "[circular]",
    });
  });
});

describe("logger", () => {
  it("appends redacted JSON lines to logs/<name>-<UTC date>.log with mode 0600", () => {
    let now = new Date("2026-11-29T23:59:59.000Z");
    const seen: LogEntry[] = [];
    const log = createLogger({
      home: t.home,
      agentName: "my-claude",
      clock: () => now,
      sink: (e) => seen.push(e),
    });
    log.info("polling", { url: "http://k", token: AGENT_TOKEN });
    log.error("post failed", { err: new Error(`401 for Bearer ${AGENT_TOKEN}`) });
    const file = log.file();
    expect(file).toMatch(/logs\/my-claude-2026-11-29\.log$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, "utf8");
    expect(text).not.toContain("cm_agent_");
    const lines = text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as LogEntry);
    expect(lines[0]).toEqual({
      url: "http://k",
      token: REDACTED,
      ts: now.toISOString(),
      level: "info",
      agent: "my-claude",
      msg: "polling",
    });
    expect(lines[1]).toMatchObject({
      level: "error",
      err: { name: "Error", message: `401 for ${REDACTED}` },
    });
    expect(seen).toEqual(lines);

    now = new Date("2026-11-30T00:00:01.000Z");
    log.warn("next day");
    expect(readFileSync(log.file(), "utf8")).toContain("next day");
    expect(log.file()).toMatch(/my-claude-2026-11-30\.log$/);
  });

  it("does not let fields overwrite the timestamp, level or message", () => {
    const log = createLogger({ home: t.home, agentName: "a", clock: () => new Date(0) });
    log.info("real", { msg: "fake", level: "error", ts: "x" });
    const line = JSON.parse(readFileSync(log.file(), "utf8")) as LogEntry;
    expect(line).toMatchObject({ msg: "real", level: "info", ts: "1970-01-01T00:00:00.000Z" });
  });
});
