/**
 * Memory: one envelope per agent identity (CAP-MEM-*). PUT merges per section key; sync applies `full` or
 * `patch` unless its dedup key equals the last applied sync's key. Every write is one read-modify-write
 * transaction on the agent's row, so no write is half-applied and none is lost to a concurrent one.
 */
import { fail } from "../errors/registry.js";
import { sha256Hex } from "../secrets.js";
import { canonicalJson } from "./canonical-json.js";
import { patchSections, stampAll, stampSection, unknownSectionKeys, } from "./memory-sections.js";
/** CAP-MEM-15: day | sourceRuntime | sha256(canonical {sections, sourceRuntime ?? null, mode}). */
export function syncDedupKey(body, now) {
    const day = new Date(now).toISOString().slice(0, 10);
    const canonical = canonicalJson({
        sections: body.sections,
        sourceRuntime: body.sourceRuntime ?? null,
        mode: body.mode,
    });
    return `${day}|${body.sourceRuntime ?? ""}|${sha256Hex(canonical)}`;
}
export function rejectUnknownSections(sections) {
    const unknown = unknownSectionKeys(sections);
    if (unknown.length > 0)
        fail("unknown_memory_section", undefined, { sections: unknown });
}
const empty = (agentId) => ({
    agentId,
    content: "",
    sections: {},
    sourceRuntime: null,
    syncKey: null,
    updatedAt: 0,
});
export function createMemoryService({ store, clock }) {
    return {
        async get(caller) {
            const m = (await store.getMemory(caller.agentId)) ?? empty(caller.agentId);
            return {
                content: m.content,
                sections: m.sections,
                ...(m.sourceRuntime !== null ? { sourceRuntime: m.sourceRuntime } : {}),
                schemaVersion: 2,
            };
        },
        async put(caller, body) {
            rejectUnknownSections(body.sections);
            if (body.content === undefined && body.sections === undefined)
                fail("validation_failed", undefined, {
                    errors: [{ path: "/", in: "body", message: "must have at least one of content, sections" }],
                });
            await store.transaction(async (tx) => {
                const now = clock.now();
                const cur = (await tx.getMemoryForUpdate(caller.agentId)) ?? empty(caller.agentId);
                const sections = { ...cur.sections };
                for (const [k, v] of Object.entries(body.sections ?? {}))
                    sections[k] = stampSection(k, v, now);
                const longTerm = body.sections?.long_term !== undefined ? sections.long_term : null;
                await tx.putMemory({
                    agentId: caller.agentId,
                    content: body.content ?? longTerm?.content ?? cur.content,
                    sections,
                    sourceRuntime: body.sourceRuntime ?? cur.sourceRuntime,
                    syncKey: null,
                    updatedAt: now,
                });
            });
        },
        async sync(caller, body) {
            rejectUnknownSections(body.sections);
            return store.transaction(async (tx) => {
                const now = clock.now();
                const key = syncDedupKey(body, now);
                const cur = (await tx.getMemoryForUpdate(caller.agentId)) ?? empty(caller.agentId);
                if (cur.syncKey === key)
                    return { deduped: true };
                const sections = body.mode === "full"
                    ? stampAll(body.sections, now)
                    : patchSections(cur.sections, body.sections, now);
                const longTerm = body.sections.long_term !== undefined ? sections.long_term : null;
                await tx.putMemory({
                    agentId: caller.agentId,
                    content: longTerm?.content ?? cur.content,
                    sections,
                    sourceRuntime: body.sourceRuntime ?? cur.sourceRuntime,
                    syncKey: key,
                    updatedAt: now,
                });
                return { deduped: false };
            });
        },
    };
}
//# sourceMappingURL=memory.js.map