/**
 * Passing a prompt as one argv element without it being read as an option.
 *
 * A pod message such as "--help me" would otherwise reach claude/codex/gemini as a flag. Option
 * parsers (commander, clap, yargs) treat an element starting with a space as a plain value, and a
 * model does not care about one leading space, so that is all this does.
 */
export function promptArg(prompt: string): string {
  return prompt.startsWith("-") ? ` ${prompt}` : prompt;
}
