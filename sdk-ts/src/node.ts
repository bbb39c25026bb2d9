/**
 * `@commonly/cap-sdk/node`: helpers that need Node built-ins, kept out of the portable root export.
 */
export { JsonFileHandledStore, type JsonFileHandledStoreOptions } from "./node/json-file-store.js";
