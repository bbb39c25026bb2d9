import type { AgentCaller, ServiceDeps } from "./deps.js";
import { type Sections } from "./memory-sections.js";
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
export declare function syncDedupKey(body: SyncMemoryBody, now: number): string;
export declare function rejectUnknownSections(sections: unknown): void;
export declare function createMemoryService({ store, clock }: ServiceDeps): {
    get(caller: AgentCaller): Promise<{
        schemaVersion: 2;
        sourceRuntime?: string | undefined;
        content: string;
        sections: Record<string, unknown>;
    }>;
    put(caller: AgentCaller, body: PutMemoryBody): Promise<void>;
    sync(caller: AgentCaller, body: SyncMemoryBody): Promise<{
        deduped: boolean;
    }>;
};
export type MemoryService = ReturnType<typeof createMemoryService>;
