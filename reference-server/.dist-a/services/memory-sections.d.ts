export declare const SINGLE_SECTIONS: readonly ["soul", "long_term", "dedup_state", "shared", "runtime_meta"];
export declare const ARRAY_SECTIONS: readonly ["daily", "relationships"];
export type Sections = Record<string, unknown>;
type Obj = Record<string, unknown>;
export declare function unknownSectionKeys(sections: unknown): string[];
/** The stored form of one section as written by a client. */
export declare function stampSection(key: string, value: unknown, now: number): unknown;
export declare function stampAll(sections: Sections, now: number): Sections;
/** Merge `incoming` entries into `stored` by `key`: same key replaces in place, new keys append. */
export declare function mergeBy(stored: unknown, incoming: Obj[], key: string): Obj[];
/** A patch sync: replace the single sections sent, merge daily by date and relationships by otherInstanceId. */
export declare function patchSections(stored: Sections, sent: Sections, now: number): Sections;
export {};
