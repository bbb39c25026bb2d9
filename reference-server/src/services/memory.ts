/**
 * Memory: one envelope per agent identity (CAP-MEM-*). PUT merges per section key; sync applies `full` or
 * `patch` unless its dedup key equals the last applied sync's key. Every write is one read-modify-write
 * transaction on the agent's row, so no write is half-applied and none is lost to a concurrent one. Sizes
 * are bounded (memory-size.ts): each section's text before the transaction, the whole envelope the write
 * would store inside it.
 */
import { fail } from "../errors/registry.js";
import { sha256Hex } from "../secrets.js";
import type { MemoryRecord } from "../store/contract.js";
import { canonicalJson } from "./canonical-json.js";
import type { AgentCaller, ServiceDeps } from "./deps.js";
import {
  patchSections,
  type Sections,
  stampAll,
  stampSection,
  unknownSectionKeys,
} from "./memory-sections.js";
import { checkEnvelopeSize, checkSectionSizes } from "./memory-size.js";

export interface PutMemoryBody {
  content?: string;
  sections?: Sections;
  sourceRuntime?: string;
}

export interface SyncMemoryBody {
  sections: Sections;
  mode: "full" | "patch";
  sourceRuntime?: string;
}

/** CAP-MEM-15: day | sourceRuntime | sha256(canonical {sections, sourceRuntime ?? null, mode}). */
export function syncDedupKey(body: SyncMemoryBody, now: number): string {
  const day = new Date(now).toISOString().slice(0, 10);
  const canonical = canonicalJson({
    sections: body.sections,
    sourceRuntime: body.sourceRuntime ?? null,
    mode: body.mode,
  });
  return `${day}|${body.sourceRuntime ?? ""}|${sha256Hex(canonical)}`;
}

export function rejectUnknownSections(sections: unknown): void {
  const unknown = unknownSectionKeys(sections);
  if (unknown.length > 0) fail("unknown_memory_section", undefined, { sections: unknown });
}

const empty = (agentId: string): MemoryRecord => ({
  agentId,
  content: "",
  sections: {},
  sourceRuntime: null,
  syncKey: null,
  updatedAt: 0,
});

export function createMemoryService({ store, clock, config }: ServiceDeps) {
  const { maxMemoryBytes, maxMemorySectionBytes } = config.limits;
  return {
    async get(caller: AgentCaller) {
      const m = (await store.getMemory(caller.agentId)) ?? empty(caller.agentId);
      return {
        content: m.content,
        sections: m.sections,
        ...(m.sourceRuntime !== null ? { sourceRuntime: m.sourceRuntime } : {}),
        schemaVersion: 2 as const,
      };
    },

    async put(caller: AgentCaller, body: PutMemoryBody): Promise<void> {
      rejectUnknownSections(body.sections);
      if (body.content === undefined && body.sections === undefined)
        fail("validation_failed", undefined, {
          errors: [{ path: "/", in: "body", message: "must have at least one of content, sections" }],
        });
      checkSectionSizes(body, maxMemorySectionBytes);
      await store.transaction(async (tx) => {
        const now = clock.now();
        const cur = (await tx.getMemoryForUpdate(caller.agentId)) ?? empty(caller.agentId);
        const sections = { ...cur.sections };
        for (const [k, v] of Object.entries(body.sections ?? {})) sections[k] = stampSection(k, v, now);
        const longTerm =
          body.sections?.long_term !== undefined ? (sections.long_term as { content: string }) : null;
        const next = {
          agentId: caller.agentId,
          content: body.content ?? longTerm?.content ?? cur.content,
          sections,
          sourceRuntime: body.sourceRuntime ?? cur.sourceRuntime,
          syncKey: null,
          updatedAt: now,
        };
        checkEnvelopeSize(next, maxMemoryBytes);
        await tx.putMemory(next);
      });
    },

    async sync(caller: AgentCaller, body: SyncMemoryBody): Promise<{ deduped: boolean }> {
      rejectUnknownSections(body.sections);
      checkSectionSizes(body, maxMemorySectionBytes);
      return store.transaction(async (tx) => {
        const now = clock.now();
        const key = syncDedupKey(body, now);
        const cur = (await tx.getMemoryForUpdate(caller.agentId)) ?? empty(caller.agentId);
        if (cur.syncKey === key) return { deduped: true };
        const sections =
          body.mode === "full"
            ? stampAll(body.sections, now)
            : patchSections(cur.sections, body.sections, now);
        const longTerm =
          body.sections.long_term !== undefined ? (sections.long_term as { content: string }) : null;
        const next = {
          agentId: caller.agentId,
          content: longTerm?.content ?? cur.content,
          sections,
          sourceRuntime: body.sourceRuntime ?? cur.sourceRuntime,
          syncKey: key,
          updatedAt: now,
        };
        checkEnvelopeSize(next, maxMemoryBytes);
        await tx.putMemory(next);
        return { deduped: false };
      });
    },
  };
}

export type MemoryService = ReturnType<typeof createMemoryService>;
