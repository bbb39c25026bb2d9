import { describe, expect, it } from "vitest";
import { ADAPTER_NAMES, getAdapter, isAdapterName } from "../../src/adapters/registry.js";

describe("adapter registry", () => {
  it.each(["claude", "codex", "gemini", "cursor", "stub"])("returns the %s adapter by name", (name) => {
    expect(getAdapter(name).name).toBe(name);
  });

  it("builds a cmd adapter from its options and refuses one without a command", () => {
    expect(getAdapter("cmd", { command: "./bot.sh", args: ["{prompt}"] }).name).toBe("cmd");
    expect(() => getAdapter("cmd")).toThrow(/needs a command/);
  });

  it("rejects unknown names, listing the known ones", () => {
    expect(() => getAdapter("openclaw")).toThrow(/unknown adapter "openclaw"; known: claude, codex/);
    expect(isAdapterName("openclaw")).toBe(false);
    expect(ADAPTER_NAMES.every(isAdapterName)).toBe(true);
  });
});
