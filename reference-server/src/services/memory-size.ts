/**
 * Memory size limits (issue 30, finding 2; CAP-ERR-10): the text of one section or array item
 * (`limits.maxMemorySectionBytes`, UTF-8 bytes of a single section's or daily entry's `content`, of a
 * relationship's `notes`, of PUT's top-level `content`) and the whole envelope (`limits.maxMemoryBytes`,
 * UTF-8 bytes of the JSON `GET /memory` would answer after the write). Either refused is `413
 * memory_too_large` with `details` {limit, max, size, section?, index?}.
 * Without them sixty patch syncs grew one envelope to 52 MiB, and every later sync of it blocked the
 * event loop for seconds (6.1 s), `/healthz` included.
 * Must never: be checked against anything but the envelope the write would store (the memory service calls
 * checkEnvelopeSize inside the write's own transaction, so a refused write leaves the stored envelope as it was).
 */
import { fail } from "../errors/registry.js";
import type { Sections } from "./memory-sections.js";

type Obj = Record<string, unknown>;

const bytes = (text: unknown) => (typeof text === "string" ? Buffer.byteLength(text, "utf8") : 0);

function refuseSection(max: number, size: number, section: string, index?: number): never {
  fail("memory_too_large", `The ${section} section's text is ${size} bytes; the limit is ${max}.`, {
    limit: "maxMemorySectionBytes",
    max,
    size,
    section,
    ...(index !== undefined ? { index } : {}),
  });
}

/** Refuses (413) a write whose top-level `content` or any section or item text it sends is over `max`. */
export function checkSectionSizes(body: { content?: unknown; sections?: Sections }, max: number): void {
  const top = bytes(body.content);
  if (top > max) refuseSection(max, top, "content");
  for (const [key, value] of Object.entries(body.sections ?? {})) {
    if (Array.isArray(value)) {
      const field = key === "relationships" ? "notes" : "content";
      value.forEach((item, index) => {
        const size = bytes((item as Obj | null)?.[field]);
        if (size > max) refuseSection(max, size, key, index);
      });
    } else {
      const size = bytes((value as Obj | null)?.content);
      if (size > max) refuseSection(max, size, key);
    }
  }
}

/** UTF-8 bytes of the envelope as `GET /memory` answers it. */
export function envelopeBytes(m: {
  content: string;
  sections: Sections;
  sourceRuntime: string | null;
}): number {
  const answer = {
    content: m.content,
    sections: m.sections,
    ...(m.sourceRuntime !== null ? { sourceRuntime: m.sourceRuntime } : {}),
    schemaVersion: 2,
  };
  return Buffer.byteLength(JSON.stringify(answer), "utf8");
}

/** Refuses (413) an envelope over `max` bytes; called on the envelope a write is about to store. */
export function checkEnvelopeSize(
  m: { content: string; sections: Sections; sourceRuntime: string | null },
  max: number,
): void {
  const size = envelopeBytes(m);
  if (size > max)
    fail(
      "memory_too_large",
      `This write would make the memory envelope ${size} bytes; the limit is ${max}.`,
      {
        limit: "maxMemoryBytes",
        max,
        size,
      },
    );
}
