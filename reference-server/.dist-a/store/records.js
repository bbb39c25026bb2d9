/**
 * The rows a store keeps, as plain objects. Shared by the store contract, both store implementations and
 * the services. Times are epoch milliseconds (numbers) everywhere: the services own the clock and pass
 * `now` into every store call, so a store never reads the wall clock itself. JSON-valued fields
 * (payloads, metadata, manifests, memory sections) are stored and returned as parsed JSON values.
 *
 * Must never: carry a raw token (only SHA-256 hex hashes), or anything HTTP-shaped.
 */
export {};
//# sourceMappingURL=records.js.map