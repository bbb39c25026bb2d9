import { homedir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { agentPaths, assertAgentName, configPath, resolveHome } from "../../src/state/home.js";

describe("resolveHome", () => {
  it("uses COMMONLY_HOME when set and ~/.commonly otherwise", () => {
    expect(resolveHome({ COMMONLY_HOME: "/srv/commonly" })).toBe("/srv/commonly");
    expect(resolveHome({ COMMONLY_HOME: "  " })).toBe(join(homedir(), ".commonly"));
    expect(resolveHome({})).toBe(join(homedir(), ".commonly"));
  });
});

describe("agent paths", () => {
  it("lays out ADR-005's files under the home", () => {
    const p = agentPaths("/h", "my-claude");
    expect(p).toMatchObject({
      token: "/h/tokens/my-claude.json",
      sessions: "/h/sessions/my-claude.json",
      events: "/h/sessions/my-claude.events.json",
      pidfile: "/h/run/my-claude.pid",
    });
    expect(p.log(new Date("2026-11-29T23:59:59Z"))).toBe("/h/logs/my-claude-2026-11-29.log");
    expect(configPath("/h")).toBe("/h/config.json");
  });

  it.each(["my-claude", "a", "sam.local_codex-2", "A1"])("accepts the agent name %j", (name) => {
    expect(() => assertAgentName(name)).not.toThrow();
  });

  it.each(["", "../etc", "a/b", ".hidden", "-flag", "x".repeat(65), "with space", "naïve"])(
    "rejects the agent name %j, so no path leaves the home",
    (name) => {
      expect(() => agentPaths("/h", name)).toThrow(TypeError);
    },
  );
});
