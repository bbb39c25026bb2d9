/**
 * SQLite ops for humans: users, their API tokens, pods and pod members.
 */
import { insertInto } from "../rows.js";
import { MEMBERS, PODS, USER_TOKENS, USERS } from "../schema.js";
import { JSON_TEXT, toMember, toPod, toUser, toUserToken } from "./rows.js";
const INSERT_USER = insertInto(USERS, "sqlite", JSON_TEXT);
const INSERT_USER_TOKEN = insertInto(USER_TOKENS, "sqlite", JSON_TEXT);
const INSERT_POD = insertInto(PODS, "sqlite", JSON_TEXT);
const PUT_MEMBER = insertInto(MEMBERS, "sqlite", JSON_TEXT, "ON CONFLICT (pod_id, user_id) DO UPDATE SET role = excluded.role");
export function peopleOps({ db, authChanged }) {
    const q = {
        insertUser: db.prepare(INSERT_USER.sql),
        getUser: db.prepare("SELECT * FROM users WHERE id = ?"),
        usersByName: db.prepare("SELECT * FROM users WHERE name = ? AND deleted_at IS NULL ORDER BY created_at, rowid"),
        listUsers: db.prepare("SELECT * FROM users ORDER BY created_at, rowid"),
        deleteUser: db.prepare("UPDATE users SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL"),
        insertUserToken: db.prepare(INSERT_USER_TOKEN.sql),
        userTokenByHash: db.prepare("SELECT * FROM user_tokens WHERE hash = ?"),
        revokeUserTokens: db.prepare("UPDATE user_tokens SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL"),
        insertPod: db.prepare(INSERT_POD.sql),
        getPod: db.prepare("SELECT * FROM pods WHERE id = ?"),
        podsByName: db.prepare("SELECT * FROM pods WHERE name = ? ORDER BY seq"),
        listPods: db.prepare("SELECT * FROM pods ORDER BY seq"),
        listPodsOfUser: db.prepare("SELECT p.* FROM pods p JOIN members m ON m.pod_id = p.id WHERE m.user_id = ? ORDER BY p.seq"),
        putMember: db.prepare(PUT_MEMBER.sql),
        getMember: db.prepare("SELECT * FROM members WHERE pod_id = ? AND user_id = ?"),
        listMembers: db.prepare("SELECT * FROM members WHERE pod_id = ? ORDER BY added_at, rowid"),
        removeMember: db.prepare("DELETE FROM members WHERE pod_id = ? AND user_id = ?"),
    };
    return {
        insertUser: (u) => void q.insertUser.run(INSERT_USER.values(u)),
        getUser: (id) => {
            const r = q.getUser.get(id);
            return r ? toUser(r) : null;
        },
        findUsersByName: (name) => q.usersByName.all(name).map(toUser),
        listUsers: () => q.listUsers.all().map(toUser),
        markUserDeleted: (id, now) => {
            const done = q.deleteUser.run(now, id).changes === 1;
            if (done)
                authChanged(); // the user's runtime tokens stop authenticating (token caches)
            return done;
        },
        insertUserToken: (t) => void q.insertUserToken.run(INSERT_USER_TOKEN.values(t)),
        findUserTokenByHash: (hash) => {
            const r = q.userTokenByHash.get(hash);
            if (!r)
                return null;
            const u = q.getUser.get(r.user_id);
            return u ? { token: toUserToken(r), user: toUser(u) } : null;
        },
        revokeUserTokensOfUser: (userId, now) => q.revokeUserTokens.run(now, userId).changes,
        insertPod: (p) => void q.insertPod.run(INSERT_POD.values(p)),
        getPod: (id) => {
            const r = q.getPod.get(id);
            return r ? toPod(r) : null;
        },
        findPodsByName: (name) => q.podsByName.all(name).map(toPod),
        listPods: (filter) => (filter?.userId ? q.listPodsOfUser.all(filter.userId) : q.listPods.all()).map(toPod),
        putMember: (m) => void q.putMember.run(PUT_MEMBER.values(m)),
        getMember: (podId, userId) => {
            const r = q.getMember.get(podId, userId);
            return r ? toMember(r) : null;
        },
        listMembers: (podId) => q.listMembers.all(podId).map(toMember),
        removeMember: (podId, userId) => q.removeMember.run(podId, userId).changes === 1,
    };
}
//# sourceMappingURL=people.js.map