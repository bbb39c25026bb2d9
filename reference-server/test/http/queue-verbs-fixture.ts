/**
 * What the queue-verb tests share: the config (long leases, a backstop far beyond every wait so a long-poll
 * must be woken by the release itself), throwaway PostgreSQL schemas dropped after the file, and the
 * emit / poll / release calls against the current world.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll } from "vitest";
import type { KernelConfigInput } from "../../src/config.js";
import type { World } from "../helpers/world.js";

export const PG_URL = process.env.CAP_TEST_PG_URL;
export const MAX = 3;
export const CONFIG = {
  leaseSeconds: 30,
  maxAttempts: MAX,
  longPollBackstopMs: 60_000,
} as KernelConfigInput;

/** A new schema name per call; every one is dropped after the calling test file. */
export function pgSchemas(): () => string {
  const schemas: string[] = [];
  afterAll(async () => {
    if (!PG_URL || schemas.length === 0) return;
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    for (const s of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
    await admin.end();
  });
  return () => {
    const schema = `cap_verbs_${randomBytes(5).toString("hex")}`;
    schemas.push(schema);
    return schema;
  };
}

export type Ev = { id: string; attempts: number; leaseExpiresAt: string };

/** emit / poll / release on whatever world `current()` returns when they are called. */
export function verbs(current: () => World) {
  return {
    emit: (agentName = "alpha") =>
      current()
        .adminApi("POST", "/admin/events", {
          agentName,
          podId: current().podA.id,
          type: "task.assigned",
          payload: { taskId: "t1", title: "do" },
        })
        .then((r) => r.json().id as string),
    poll: (token: string, q = "") =>
      current()
        .cap(token, "GET", `/events${q}`)
        .then((r) => r.json().events as Ev[]),
    release: (id: string, body: unknown, token = current().alpha.token) =>
      current().cap(token, "POST", `/events/${id}/release`, body),
  };
}
