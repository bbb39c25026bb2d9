/**
 * Pure memory-section rules (brief §2.6, CAP-MEM-3..12): which keys exist, server stamping (updatedAt,
 * byteSize, default visibility; client values for them discarded), and the patch merges of the arrays.
 */
import { iso } from "../clock.js";
export const SINGLE_SECTIONS = ["soul", "long_term", "dedup_state", "shared", "runtime_meta"];
export const ARRAY_SECTIONS = ["daily", "relationships"];
const KNOWN = new Set([...SINGLE_SECTIONS, ...ARRAY_SECTIONS]);
export function unknownSectionKeys(sections) {
    if (sections === null || typeof sections !== "object" || Array.isArray(sections))
        return [];
    return Object.keys(sections).filter((k) => !KNOWN.has(k));
}
const visibility = (v) => (v === "pod" || v === "public" || v === "private" ? v : "private");
function stampSingle(input, now) {
    const content = String(input.content ?? "");
    return {
        content,
        visibility: visibility(input.visibility),
        updatedAt: iso(now),
        byteSize: Buffer.byteLength(content, "utf8"),
    };
}
const stampDaily = (e) => ({ date: e.date, content: e.content, visibility: visibility(e.visibility) });
const stampRelationship = (e, now) => ({
    otherInstanceId: e.otherInstanceId,
    notes: e.notes,
    visibility: visibility(e.visibility),
    updatedAt: iso(now),
});
/** The stored form of one section as written by a client. */
export function stampSection(key, value, now) {
    if (key === "daily")
        return value.map(stampDaily);
    if (key === "relationships")
        return value.map((e) => stampRelationship(e, now));
    return stampSingle(value, now);
}
export function stampAll(sections, now) {
    const out = {};
    for (const [k, v] of Object.entries(sections))
        out[k] = stampSection(k, v, now);
    return out;
}
/** Merge `incoming` entries into `stored` by `key`: same key replaces in place, new keys append. */
export function mergeBy(stored, incoming, key) {
    const out = Array.isArray(stored) ? [...stored] : [];
    for (const entry of incoming) {
        const i = out.findIndex((e) => e[key] === entry[key]);
        if (i >= 0)
            out[i] = entry;
        else
            out.push(entry);
    }
    return out;
}
/** A patch sync: replace the single sections sent, merge daily by date and relationships by otherInstanceId. */
export function patchSections(stored, sent, now) {
    const out = { ...stored };
    for (const [k, v] of Object.entries(sent)) {
        const stamped = stampSection(k, v, now);
        if (k === "daily")
            out[k] = mergeBy(stored[k], stamped, "date");
        else if (k === "relationships")
            out[k] = mergeBy(stored[k], stamped, "otherInstanceId");
        else
            out[k] = stamped;
    }
    return out;
}
//# sourceMappingURL=memory-sections.js.map