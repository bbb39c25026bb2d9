/**
 * Removes kernel secrets (cm_agent_…, cm_user_…, cm_join_…) from a log line in any spelling a client may
 * send or a serializer may write: any letter case, any character percent-encoded (`cm%5Fagent%5F…`,
 * `%63m_agent_…`, escapes in either case), percent-encoded more than once (`%255F`), or written as a JSON
 * `\u00XX` escape. The audit found a percent-encoded token in a URL logged in full: the plain pattern only
 * knew the literal form. Lines without `%` or `\u` take the plain (case-blind) pattern alone.
 * Must never: let 16 or more hex digits of a secret through after its prefix, in any of these spellings.
 * Other encodings (base64 in a Basic header, say) are not recognised here; the logger redacts the
 * Authorization and agent-token headers by path whatever they hold.
 */

const REDACTED = "[REDACTED]";

/** One character: itself, or its code point percent-encoded (any number of times) or as a JSON escape. */
function spelled(codes: string): string {
  return `(?:%(?:25)*(?:${codes})|\\\\{0,2}u00(?:${codes}))`;
}

function letter(ch: string): string {
  const hex = ch.charCodeAt(0).toString(16);
  // The upper-case form too: a case-blind match of the literal must see `%43` as well as `%63` for c.
  const upper = ch.toUpperCase().charCodeAt(0).toString(16);
  return `(?:${ch}|${spelled(hex === upper ? hex : `${hex}|${upper}`)})`;
}

const word = (w: string) => [...w].map(letter).join("");
const HEX_DIGIT = `(?:[0-9a-f]|${spelled("3[0-9]|[46][1-6]")})`;

/** A secret in any of the spellings above (flags g and i). */
export const ANY_SPELLED_SECRET = new RegExp(
  `${word("cm_")}(?:${word("agent")}|${word("user")}|${word("join")})${letter("_")}${HEX_DIGIT}{16,}`,
  "gi",
);

const PLAIN_SECRET = /cm_(?:agent|user|join)_[0-9a-f]{16,}/gi;

export function scrubSecrets(line: string): string {
  const pattern = line.includes("%") || line.includes("\\u") ? ANY_SPELLED_SECRET : PLAIN_SECRET;
  return line.replace(pattern, REDACTED);
}
