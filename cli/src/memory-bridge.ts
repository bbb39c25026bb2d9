/**
 * The pure half of ADR-005's memory bridge: the prompt preamble that carries `long_term` memory
 * into a wrapped CLI, and the delimited block through which the CLI hands an updated memory back.
 *
 * The production driver never wrote memory back because no CLI returns a "summary" by itself
 * (ADR-005 open question 2). Here the CLI is asked, in the prompt, to end its reply with a
 * <commonly-memory> block when it wants to change its memory; extractMemory strips that block
 * from the reply so it is never posted to the pod. Reading and syncing memory over CAP is the run
 * loop's job, not this module's: nothing here does I/O.
 */

export const MEMORY_OPEN = "<commonly-memory>";
export const MEMORY_CLOSE = "</commonly-memory>";

export const MEMORY_INSTRUCTION = [
  "=== Memory ===",
  "You have a persistent long-term memory that is shown to you at the start of each turn.",
  `To change it, end your reply with your complete updated memory between ${MEMORY_OPEN} and ${MEMORY_CLOSE}.`,
  "It replaces the whole memory and is not shown to anyone else; leave the block out to keep your memory as it is.",
].join("\n");

export interface BuildPromptInput {
  memoryLongTerm: string;
  turn: string;
  /** Ask the CLI for a memory block (default true). */
  askForMemory?: boolean;
}

/**
 * With memory: ADR-005's preamble exactly —
 *   === Context (your persistent memory) ===\n<memory>\n=== Current turn ===\n<turn>
 * — then, unless disabled, a blank line and the memory instruction. Without memory: the turn, then
 * the instruction.
 */
export function buildPrompt({ memoryLongTerm, turn, askForMemory = true }: BuildPromptInput): string {
  const memory = memoryLongTerm.trim();
  const body =
    memory === ""
      ? turn
      : `=== Context (your persistent memory) ===\n${memory}\n=== Current turn ===\n${turn}`;
  return askForMemory ? `${body}\n\n${MEMORY_INSTRUCTION}` : body;
}

export interface ExtractedMemory {
  reply: string;
  memorySummary?: string;
}

/**
 * Splits a CLI's output into the reply and the memory it asked to keep. The last complete block
 * wins; every complete block is removed from the reply. An empty block means "no update" rather
 * than "erase my memory", so a model that emits the tags with nothing inside cannot wipe memory.
 * An unclosed block is left in the reply: losing reply text is worse than showing a stray tag.
 */
export function extractMemory(text: string): ExtractedMemory {
  // Blank lines around a block go with it, so a block between two paragraphs leaves one break.
  const pattern = /\n*<commonly-memory>([\s\S]*?)<\/commonly-memory>\n*/g;
  let memorySummary: string | undefined;
  let found = false;
  const stripped = text.replace(pattern, (_all, inner: string) => {
    found = true;
    memorySummary = inner.trim();
    return "\n\n";
  });
  if (!found) return { reply: text.trim() };
  const reply = stripped.trim();
  return memorySummary ? { reply, memorySummary } : { reply };
}
