/**
 * How the terminal shows a spawn: `claude -p "hey claude, what's…"`, as ADR-005 §User flow does.
 * Display only — the adapters build the real argv (with the memory preamble), and this text is
 * never executed or parsed.
 */
import type { CmdAdapterOptions } from "../adapters/cmd.js";
import { PROMPT_PLACEHOLDER } from "../adapters/cmd.js";
import { preview } from "../ui/terminal.js";

export function describeInvocation(adapter: string, turn: string, cmd?: Partial<CmdAdapterOptions>): string {
  const p = preview(turn);
  switch (adapter) {
    case "claude":
      return `claude -p ${p}`;
    case "codex":
      return `codex exec ${p}`;
    case "gemini":
      return `gemini -p ${p}`;
    case "cursor":
      return `cursor-agent -p ${p}`;
    case "stub":
      return `stub ${p}`;
    case "cmd": {
      const args = cmd?.args ?? [];
      const viaArgv = args.some((a) => a.includes(PROMPT_PLACEHOLDER));
      const shown = args.map((a) => (a.includes(PROMPT_PLACEHOLDER) ? p : a)).join(" ");
      const command = [cmd?.command ?? "cmd", shown].filter(Boolean).join(" ");
      return viaArgv ? command : `${command} <<< ${p}`;
    }
    default:
      return `${adapter} ${p}`;
  }
}
