/**
 * Adapter lookup by the name a user types in `commonly agent attach <cli>` and that the token file
 * records. `cmd` is the one adapter built from options (its command and argv template).
 */
import { claudeAdapter } from "./claude.js";
import { type CmdAdapterOptions, createCmdAdapter } from "./cmd.js";
import { codexAdapter } from "./codex.js";
import { cursorAdapter } from "./cursor.js";
import { geminiAdapter } from "./gemini.js";
import { stubAdapter } from "./stub.js";
import type { Adapter } from "./types.js";

export const ADAPTER_NAMES = ["claude", "codex", "gemini", "cursor", "stub", "cmd"] as const;
export type AdapterName = (typeof ADAPTER_NAMES)[number];

export function isAdapterName(name: string): name is AdapterName {
  return (ADAPTER_NAMES as readonly string[]).includes(name);
}

/** The adapter for `name`; `cmd` needs `options.command`. Throws TypeError on anything unknown. */
export function getAdapter(name: string, options?: Partial<CmdAdapterOptions>): Adapter {
  switch (name) {
    case "claude":
      return claudeAdapter;
    case "codex":
      return codexAdapter;
    case "gemini":
      return geminiAdapter;
    case "cursor":
      return cursorAdapter;
    case "stub":
      return stubAdapter;
    case "cmd":
      if (!options?.command) throw new TypeError("the cmd adapter needs a command (e.g. --command ./bot.sh)");
      return createCmdAdapter({ ...options, command: options.command });
    default:
      throw new TypeError(`unknown adapter "${name}"; known: ${ADAPTER_NAMES.join(", ")}`);
  }
}
