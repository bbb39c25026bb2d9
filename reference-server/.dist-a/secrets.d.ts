export declare const RUNTIME_TOKEN: RegExp;
export declare const USER_TOKEN: RegExp;
export declare const JOIN_CODE: RegExp;
/** Every secret shape, for log redaction. */
export declare const ANY_SECRET: RegExp;
export declare const newRuntimeToken: () => string;
export declare const newUserToken: () => string;
export declare const newJoinCode: () => string;
export declare const sha256Hex: (text: string) => string;
/**
 * An opaque id: prefix + the creation millisecond (12 hex characters) + 64 random bits (16 hex). Time
 * first, so the ids a kernel makes land next to each other in every unique index on `id` (events,
 * messages, …): a random key put each insert on its own b-tree page, which every commit then wrote out.
 */
export declare const newId: (prefix: string) => string;
