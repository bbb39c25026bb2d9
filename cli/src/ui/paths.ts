/** Showing local paths the way a person would type them (`~/.commonly/…`). */
import { homedir } from "node:os";
import { sep } from "node:path";

export function tildify(path: string): string {
  const home = homedir();
  return path === home || path.startsWith(home + sep) ? `~${path.slice(home.length)}` : path;
}
