/**
 * `sessions/<name>.json`: the wrapped CLI's session id per pod, `{podId: {sessionId, lastTurn}}`
 * exactly as ADR-005 specifies. One file per agent so two agents' run loops never share a file;
 * within a process, writes are queued so two updates never lose one another.
 */
import { readJson, writeJsonAtomic } from "./atomic-file.js";
import { agentPaths } from "./home.js";

export interface SessionEntry {
  sessionId: string;
  /** ISO 8601 time of the last completed turn. */
  lastTurn: string;
}

export type SessionMap = Record<string, SessionEntry>;

export interface SessionStore {
  get(podId: string): Promise<SessionEntry | null>;
  set(podId: string, sessionId: string, at?: Date): Promise<void>;
  delete(podId: string): Promise<void>;
  all(): Promise<SessionMap>;
}

export function createSessionStore(home: string, agentName: string): SessionStore {
  const path = agentPaths(home, agentName).sessions;
  let queue: Promise<unknown> = Promise.resolve();
  const read = (): Promise<SessionMap> => readJson<SessionMap>(path, {});
  const update = (fn: (map: SessionMap) => void): Promise<void> => {
    const next = queue.then(async () => {
      const map = await read();
      fn(map);
      await writeJsonAtomic(path, map);
    });
    queue = next.catch(() => {});
    return next;
  };
  return {
    async get(podId) {
      await queue;
      const entry = (await read())[podId];
      return entry && typeof entry.sessionId === "string" ? entry : null;
    },
    set(podId, sessionId, at = new Date()) {
      return update((map) => {
        map[podId] = { sessionId, lastTurn: at.toISOString() };
      });
    },
    delete(podId) {
      return update((map) => {
        delete map[podId];
      });
    },
    async all() {
      await queue;
      return read();
    },
  };
}
