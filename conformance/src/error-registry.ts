/** The CAP error registry (`@commonly/cap-spec/errors.json`, surface `cap`): code → the one status it is sent with. */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import type { RegistryEntry } from "./http/audit.js";

export async function loadErrorRegistry(): Promise<Map<string, RegistryEntry>> {
  const path = createRequire(import.meta.url).resolve("@commonly/cap-spec/errors.json");
  const doc = JSON.parse(await readFile(path, "utf8")) as {
    errors: (RegistryEntry & { surface?: string })[];
  };
  return new Map(doc.errors.filter((e) => (e.surface ?? "cap") === "cap").map((e) => [e.code, e]));
}
