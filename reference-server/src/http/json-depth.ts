/**
 * JSON nesting depth, counted in objects and arrays (`{}` is 1, `{"a":[1]}` is 2, a scalar 0). Two uses:
 * the body parser refuses a body deeper than `limits.maxJsonDepth` (content-type.ts), and the reply
 * serializer answers a stored value too deep for JSON.stringify — one written before the kernel limited
 * depth — with its over-deep parts replaced by TOO_DEEP_PLACEHOLDER instead of failing the read.
 *
 * Must never recurse more than `max + 1` levels: the values walked here may be nested thousands deep, which
 * is exactly what overflows the stack of a recursive walk (JSON.stringify's included).
 */

/** What an answer holds in place of a stored value nested deeper than the limit (docs/CAP.md, Limits). */
export const TOO_DEEP_PLACEHOLDER = "[json_too_deep]";

/** true when `value` nests objects and arrays more than `max` deep. Stops at the first level past `max`. */
export function deeperThan(value: unknown, max: number): boolean {
  if (typeof value !== "object" || value === null) return false;
  if (max === 0) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (deeperThan(value[i], max - 1)) return true;
    return false;
  }
  // `for…in` over a parsed body visits its own keys only (JSON.parse makes plain objects).
  for (const k in value) if (deeperThan((value as Record<string, unknown>)[k], max - 1)) return true;
  return false;
}

/** A copy of `value` in which every object or array at depth `max + 1` is the placeholder. */
export function trimDeep(value: unknown, max: number): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (max === 0) return TOO_DEEP_PLACEHOLDER;
  const json = (value as { toJSON?: unknown }).toJSON;
  // Dates and the like serialize to a scalar; keep what JSON.stringify would have written for them.
  if (typeof json === "function") return trimDeep((value as { toJSON(): unknown }).toJSON(), max);
  if (Array.isArray(value)) return value.map((v) => trimDeep(v, max - 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = trimDeep(v, max - 1);
  return out;
}

/**
 * Fastify's reply serializer: JSON.stringify, and only when that overflows the stack (a stored value
 * thousands deep) the trimmed copy. The common answer pays one try block, nothing more.
 */
export function depthSafeSerializer(max: number): (payload: unknown) => string {
  return (payload) => {
    try {
      return JSON.stringify(payload);
    } catch (err) {
      if (!(err instanceof RangeError)) throw err;
      return JSON.stringify(trimDeep(payload, max));
    }
  };
}
