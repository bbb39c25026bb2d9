/**
 * SQLite ops for humans: users, their API tokens, pods and pod members.
 */

import type { PeopleOpName } from "../contract.js";
import { type Row, toMember, toPod, toUser, toUserToken } from "./rows.js";
import type { SqliteContext, SyncOps } from "./types.js";

type PeopleOps = Pick<SyncOps, PeopleOpName>;

export function peopleOps({ db, authChanged }: SqliteContext): PeopleOps {
  const q = {
    insertUser: db.prepare(
      "INSERT INTO users (id, name, is_admin, created_at, deleted_at) VALUES (@id, @name, @isAdmin, @createdAt, @deletedAt)",
    ),
    getUser: db.prepare("SELECT * FROM users WHERE id = ?"),
    usersByName: db.prepare(
      "SELECT * FROM users WHERE name = ? AND deleted_at IS NULL ORDER BY created_at, rowid",
    ),
    listUsers: db.prepare("SELECT * FROM users ORDER BY created_at, rowid"),
    deleteUser: db.prepare("UPDATE users SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL"),
    insertUserToken: db.prepare(
      `INSERT INTO user_tokens (id, user_id, hash, label, created_at, revoked_at)
       VALUES (@id, @userId, @hash, @label, @createdAt, @revokedAt)`,
    ),
    userTokenByHash: db.prepare("SELECT * FROM user_tokens WHERE hash = ?"),
    revokeUserTokens: db.prepare(
      "UPDATE user_tokens SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL",
    ),
    insertPod: db.prepare(
      "INSERT INTO pods (id, name, created_by, created_at) VALUES (@id, @name, @createdBy, @createdAt)",
    ),
    getPod: db.prepare("SELECT * FROM pods WHERE id = ?"),
    podsByName: db.prepare("SELECT * FROM pods WHERE name = ? ORDER BY seq"),
    listPods: db.prepare("SELECT * FROM pods ORDER BY seq"),
    listPodsOfUser: db.prepare(
      "SELECT p.* FROM pods p JOIN members m ON m.pod_id = p.id WHERE m.user_id = ? ORDER BY p.seq",
    ),
    putMember: db.prepare(
      `INSERT INTO members (pod_id, user_id, role, added_at) VALUES (@podId, @userId, @role, @addedAt)
       ON CONFLICT (pod_id, user_id) DO UPDATE SET role = excluded.role`,
    ),
    getMember: db.prepare("SELECT * FROM members WHERE pod_id = ? AND user_id = ?"),
    listMembers: db.prepare("SELECT * FROM members WHERE pod_id = ? ORDER BY added_at, rowid"),
    removeMember: db.prepare("DELETE FROM members WHERE pod_id = ? AND user_id = ?"),
  };
  return {
    insertUser: (u) => void q.insertUser.run({ ...u, isAdmin: u.isAdmin ? 1 : 0 }),
    getUser: (id) => {
      const r = q.getUser.get(id) as Row | undefined;
      return r ? toUser(r) : null;
    },
    findUsersByName: (name) => (q.usersByName.all(name) as Row[]).map(toUser),
    listUsers: () => (q.listUsers.all() as Row[]).map(toUser),
    markUserDeleted: (id, now) => {
      const done = q.deleteUser.run(now, id).changes === 1;
      if (done) authChanged(); // the user's runtime tokens stop authenticating (token caches)
      return done;
    },
    insertUserToken: (t) => void q.insertUserToken.run(t),
    findUserTokenByHash: (hash) => {
      const r = q.userTokenByHash.get(hash) as Row | undefined;
      if (!r) return null;
      const u = q.getUser.get(r.user_id) as Row | undefined;
      return u ? { token: toUserToken(r), user: toUser(u) } : null;
    },
    revokeUserTokensOfUser: (userId, now) => q.revokeUserTokens.run(now, userId).changes,
    insertPod: (p) => void q.insertPod.run(p),
    getPod: (id) => {
      const r = q.getPod.get(id) as Row | undefined;
      return r ? toPod(r) : null;
    },
    findPodsByName: (name) => (q.podsByName.all(name) as Row[]).map(toPod),
    listPods: (filter) =>
      ((filter?.userId ? q.listPodsOfUser.all(filter.userId) : q.listPods.all()) as Row[]).map(toPod),
    putMember: (m) => void q.putMember.run(m),
    getMember: (podId, userId) => {
      const r = q.getMember.get(podId, userId) as Row | undefined;
      return r ? toMember(r) : null;
    },
    listMembers: (podId) => (q.listMembers.all(podId) as Row[]).map(toMember),
    removeMember: (podId, userId) => q.removeMember.run(podId, userId).changes === 1,
  };
}
