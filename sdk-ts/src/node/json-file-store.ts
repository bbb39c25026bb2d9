/**
 * A `HandledStore` persisted as one JSON file, so a restarted driver still re-acks events it handled
 * before the restart instead of running their handlers again (the CLI keeps the same ring in
 * `~/.commonly/sessions/<name>.events.json`). Writes are atomic (temp file + rename) and bounded to
 * `capacity` ids. Node only. It never throws on a missing or corrupt file: it starts empty.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { type HandledStore, MemoryHandledStore } from "../handled-store.js";
import type { AckResult } from "../types.js";

export interface JsonFileHandledStoreOptions {
  /** Ids kept, oldest forgotten first (default 1000). */
  capacity?: number;
}

interface FileShape {
  version: 1;
  handled: Array<[string, AckResult]>;
}

/** A bounded handled-ids store in a JSON file, written atomically on every `set`. */
export class JsonFileHandledStore implements HandledStore {
  readonly path: string;
  readonly #memory: MemoryHandledStore;

  constructor(path: string, options: JsonFileHandledStoreOptions = {}) {
    this.path = path;
    this.#memory = new MemoryHandledStore(options);
    for (const [id, result] of this.#load()) this.#memory.set(id, result);
  }

  get size(): number {
    return this.#memory.size;
  }

  get(eventId: string): AckResult | undefined {
    return this.#memory.get(eventId);
  }

  set(eventId: string, result: AckResult): void {
    this.#memory.set(eventId, result);
    const body: FileShape = { version: 1, handled: this.#memory.entries() };
    mkdirSync(dirname(this.path), { recursive: true });
    const temp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(temp, `${JSON.stringify(body)}\n`, { mode: 0o600 });
    renameSync(temp, this.path);
  }

  #load(): Array<[string, AckResult]> {
    try {
      const parsed = JSON.parse(readFileSync(this.path, "utf8")) as Partial<FileShape>;
      if (!Array.isArray(parsed.handled)) return [];
      return parsed.handled.filter(
        (e): e is [string, AckResult] =>
          Array.isArray(e) && typeof e[0] === "string" && typeof e[1]?.outcome === "string",
      );
    } catch {
      return [];
    }
  }
}
