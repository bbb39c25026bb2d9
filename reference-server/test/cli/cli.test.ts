/**
 * The CLI acting on a database file with no server running: provision (flags and --for-conformance fixture
 * shape), emit, tokens issue|revoke, dead-letters list|requeue; --help on every command.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/store/sqlite/index.js";
import { cli } from "../helpers/process.js";

const freshDb = () => join(mkdtempSync(join(tmpdir(), "cap-cli-")), "k.db");

describe("cap-kernel CLI", () => {
  it("prints the conformance fixture: two agents share a pod, a third is alone in another, a human token", async () => {
    const f = JSON.parse(
      await cli([
        "provision",
        "--for-conformance",
        "--db",
        `sqlite:${freshDb()}`,
        "--base-url",
        "http://127.0.0.1:9999",
        "--lease-seconds",
        "2",
        "--max-attempts",
        "3",
      ]),
    );
    expect(f).toMatchObject({ baseUrl: "http://127.0.0.1:9999", leaseSeconds: 2, maxAttempts: 3 });
    expect(f.agents.map((a: { podId: string }) => a.podId)).toEqual([
      f.pods.shared,
      f.pods.shared,
      f.pods.other,
    ]);
    for (const a of f.agents) expect(a.token).toMatch(/^cm_agent_[0-9a-f]{64}$/);
    expect(new Set(f.agents.map((a: { name: string }) => a.name)).size).toBe(3);
    expect(f.human.token).toMatch(/^cm_user_[0-9a-f]{64}$/);
    expect(f.revokedToken).toMatch(/^cm_agent_[0-9a-f]{64}$/);
  });

  it("provisions from flags, emits, issues and revokes tokens, lists and requeues dead letters", async () => {
    const path = freshDb();
    const db = ["--db", `sqlite:${path}`];
    const p = JSON.parse(
      await cli([
        "provision",
        ...db,
        "--admin",
        "ops",
        "--pod",
        "lab",
        "--agent",
        "bot@lab",
        "--agent",
        "bot:two@lab",
      ]),
    );
    expect(p.agents.map((a: { name: string; instanceId: string }) => `${a.name}:${a.instanceId}`)).toEqual([
      "bot:default",
      "bot:two",
    ]);
    const emitted = JSON.parse(
      await cli([
        "emit",
        ...db,
        "--agent",
        "bot",
        "--pod",
        "lab",
        "--type",
        "task.assigned",
        "--payload",
        '{"taskId":"t1","title":"go"}',
      ]),
    );
    expect(emitted).toMatchObject({ type: "task.assigned", agentName: "bot", instanceId: "default" });
    const issued = JSON.parse(
      await cli(["tokens", "issue", ...db, "--agent", "bot", "--pod", "lab", "--label", "laptop"]),
    );
    expect(issued.token).toMatch(/^cm_agent_/);
    const user = JSON.parse(await cli(["tokens", "issue", ...db, "--user", "ops"]));
    expect(user.token).toMatch(/^cm_user_/);
    expect(JSON.parse(await cli(["tokens", "revoke", ...db, issued.id]))).toEqual({
      ok: true,
      revoked: issued.id,
    });
    await expect(cli(["tokens", "revoke", ...db, issued.id])).rejects.toThrow(/no live runtime token/);

    // The driver released its last attempt with a reason: a dead letter the listing explains.
    const store = openSqliteStore({ path });
    const agentId = (await store.findAgentIdentity("bot", "default"))!.id;
    const now = Date.now();
    await store.claimEvents({ agentId, limit: 10, leaseMs: 30_000, maxAttempts: 1, now });
    const released = await store.releaseEvent({
      agentId,
      eventId: emitted.id,
      attempts: 1,
      now,
      availableAt: now,
      reason: "poison payload",
      maxAttempts: 1,
    });
    expect(released.status).toBe("failed");
    await store.close();
    const dead = JSON.parse(await cli(["dead-letters", "list", ...db, "--pod", "lab"]));
    expect(dead.events.map((e: { id: string }) => e.id)).toEqual([emitted.id]);
    expect(dead.events[0]).toMatchObject({ failReason: "released", releaseReason: "poison payload" });
    expect(JSON.parse(await cli(["dead-letters", "requeue", ...db, emitted.id])).state).toBe("pending");
    await expect(cli(["dead-letters", "requeue", ...db, emitted.id])).rejects.toThrow(/requeued/i);
  });

  it("has --help on every command", async () => {
    for (const cmd of [
      [],
      ["serve"],
      ["provision"],
      ["emit"],
      ["dead-letters"],
      ["dead-letters", "list"],
      ["dead-letters", "requeue"],
      ["tokens"],
      ["tokens", "issue"],
      ["tokens", "revoke"],
      ["demo"],
    ]) {
      expect(await cli([...cmd, "--help"])).toMatch(/Usage: cap-kernel/);
    }
  });
});
