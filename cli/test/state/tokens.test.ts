import { statSync, writeFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { agentPaths } from "../../src/state/home.js";
import { listTokens, loadToken, removeToken, saveToken, type TokenRecord } from "../../src/state/tokens.js";
import { tempHome } from "../helpers/temp-home.js";

let t: ReturnType<typeof tempHome>;
beforeEach(() => {
  t = tempHome();
});
afterEach(() => t.cleanup());

const record = (name: string): TokenRecord => ({
  agentName: name,
  instanceId: "default",
  podId: "pod_1",
  instanceUrl: "http://127.0.0.1:7070",
  runtimeToken: `cm_agent_${"a".repeat(64)}`,
  adapter: "cmd",
  adapterOptions: { command: "./bot.sh", args: ["{prompt}"] },
  savedAt: "2026-11-29T18:00:00.000Z",
});

describe("token files", () => {
  it("saves tokens/<name>.json with mode 0600 and reads it back", async () => {
    await saveToken(t.home, record("my-claude"));
    const path = agentPaths(t.home, "my-claude").token;
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(await loadToken(t.home, "my-claude")).toEqual(record("my-claude"));
  });

  it("answers null for an agent that is not attached and removes idempotently", async () => {
    expect(await loadToken(t.home, "nobody")).toBeNull();
    await saveToken(t.home, record("x"));
    await removeToken(t.home, "x");
    await removeToken(t.home, "x");
    expect(await loadToken(t.home, "x")).toBeNull();
  });

  it("refuses an incomplete record, on save and on load", async () => {
    await expect(saveToken(t.home, { ...record("x"), runtimeToken: "" })).rejects.toThrow(
      /missing runtimeToken/,
    );
    await saveToken(t.home, record("y"));
    writeFileSync(agentPaths(t.home, "y").token, JSON.stringify({ agentName: "y" }));
    await expect(loadToken(t.home, "y")).rejects.toThrow(/not a valid token file .*attach the agent again/);
  });

  it("lists attached agents by name, skipping a corrupt file", async () => {
    await saveToken(t.home, record("b"));
    await saveToken(t.home, record("a"));
    writeFileSync(agentPaths(t.home, "c").token, "garbage");
    expect((await listTokens(t.home)).map((r) => r.agentName)).toEqual(["a", "b"]);
  });
});
