/**
 * Passing a prompt as one argv element safely.
 *
 * A pod message such as "--help me" would otherwise reach claude/codex/gemini as a flag. Option
 * parsers (commander, clap, yargs) treat an element starting with a space as a plain value, and a
 * model does not care about one leading space, so promptArg adds one. NUL cannot travel in argv at
 * all (spawn throws), so it is dropped from any text bound for an argument.
 */
export function argText(text: string): string {
  return text.replaceAll("\u0000", "");
}

export function promptArg(prompt: string): string {
  const clean = argText(prompt);
  return clean.startsWith("-") ? ` ${clean}` : clean;
}
