/**
 * The generic adapter ADR-005 open question 3 asks for: any executable as an agent.
 *
 *   { command: "./bot.py", args: ["--ask", "{prompt}"] }   prompt as one argv element
 *   { command: "./bot.sh" }                                 prompt on stdin
 *
 * `{prompt}` is replaced inside an argv element, never split or passed through a shell, so quotes
 * and `$` in a pod message are inert. The script gets COMMONLY_SESSION_ID, a per-(agent, pod) id
 * the wrapper mints on the first turn and keeps, so a script can key its own state on it. Stdout
 * is the reply; a trailing <commonly-memory> block updates the agent's memory, as for claude.
 */
import { randomUUID } from "node:crypto";
import { buildPrompt, extractMemory } from "../memory-bridge.js";
import { detectCommand, findExecutable } from "./detect.js";
import { contextOptions, runProcess } from "./run-process.js";
import { argText } from "./safe-arg.js";
import type { Adapter } from "./types.js";

export const PROMPT_PLACEHOLDER = "{prompt}";

export interface CmdAdapterOptions {
  /** Executable: a name looked up on PATH, or a path (relative to the agent's cwd). */
  command: string;
  /** Argument template; an element containing `{prompt}` gets the prompt. No `{prompt}`: stdin. */
  args?: readonly string[];
  /** Run `<command> --version` in detect(). Off by default: a script may not know the flag. */
  versionFlag?: boolean;
  /**
   * Wrap the turn in the memory preamble and instruction, and read a memory block back (default).
   * false: the script gets the bare turn and its whole stdout is the reply.
   */
  memory?: boolean;
}

export function createCmdAdapter({
  command,
  args = [],
  versionFlag = false,
  memory = true,
}: CmdAdapterOptions): Adapter {
  if (command.trim() === "") throw new TypeError("cmd adapter: command must not be empty");
  const viaArgv = args.some((a) => a.includes(PROMPT_PLACEHOLDER));
  return {
    name: "cmd",
    async detect(opts) {
      if (versionFlag) return detectCommand(command, opts);
      const path = await findExecutable(command, opts?.env ?? process.env, opts?.cwd ?? process.cwd());
      return path === null ? null : { path, version: "unknown" };
    },
    async spawn(prompt, ctx) {
      const full = memory ? buildPrompt({ memoryLongTerm: ctx.memoryLongTerm, turn: prompt }) : prompt;
      const sessionId = ctx.sessionId ?? randomUUID();
      const { stdout } = await runProcess({
        command,
        // split/join rather than replace(): `$&` and friends in a prompt must stay literal.
        args: args.map((a) => a.split(PROMPT_PLACEHOLDER).join(argText(full))),
        ...contextOptions(ctx),
        env: { ...ctx.env, COMMONLY_SESSION_ID: sessionId },
        ...(viaArgv ? {} : { input: full }),
      });
      const { reply, memorySummary } = memory ? extractMemory(stdout) : { reply: stdout.trim() };
      return {
        text: reply,
        newSessionId: sessionId,
        ...(memorySummary === undefined ? {} : { memorySummary }),
      };
    },
  };
}
