import { insertInto, rowMapper, selectList } from "../rows.js";
import { MEMBERS, PODS, USER_TOKENS, USERS } from "../schema.js";
import { JSON_PARAMS, toMember, toPod, toUser } from "./rows.js";
const INSERT_USER = insertInto(USERS, "postgres", JSON_PARAMS);
const INSERT_USER_TOKEN = insertInto(USER_TOKENS, "postgres", JSON_PARAMS);
const INSERT_POD = insertInto(PODS, "postgres", JSON_PARAMS);
const PUT_MEMBER = insertInto(MEMBERS, "postgres", JSON_PARAMS, `ON CONFLICT (pod_id, user_id) DO UPDATE SET role = EXCLUDED.role, added_at = EXCLUDED.added_at`);
const FIND_USER_TOKEN = `
  SELECT ${selectList(USER_TOKENS, "t")}, ${selectList(USERS, "u")}
    FROM user_tokens t JOIN users u ON u.id = t.user_id WHERE t.hash = $1`;
const authToken = rowMapper(USER_TOKENS, "postgres", "t_");
const authUser = rowMapper(USERS, "postgres", "u_");
export function peopleOps(db) {
    const one = async (text, values, map) => {
        const rows = await db.query(text, values);
        return rows[0] ? map(rows[0]) : null;
    };
    const count = async (text, values) => (await db.query(text, values)).length;
    return {
        async insertUser(u) {
            await db.query(INSERT_USER.sql, INSERT_USER.values(u));
        },
        getUser: (id) => one("SELECT * FROM users WHERE id = $1", [id], toUser),
        async findUsersByName(name) {
            const rows = await db.query("SELECT * FROM users WHERE name = $1 AND deleted_at IS NULL ORDER BY seq", [
                name,
            ]);
            return rows.map(toUser);
        },
        async listUsers() {
            return (await db.query("SELECT * FROM users ORDER BY seq")).map(toUser);
        },
        async markUserDeleted(id, now) {
            const n = await count("UPDATE users SET deleted_at = $2 WHERE id = $1 AND deleted_at IS NULL RETURNING 1", [id, now]);
            if (n > 0)
                await db.authChanged();
            return n > 0;
        },
        async insertUserToken(t) {
            await db.query(INSERT_USER_TOKEN.sql, INSERT_USER_TOKEN.values(t));
        },
        async findUserTokenByHash(hash) {
            const rows = await db.query(FIND_USER_TOKEN, [hash], "cap_find_user_token");
            const r = rows[0];
            return r ? { token: authToken(r), user: authUser(r) } : null;
        },
        revokeUserTokensOfUser: (userId, now) => count("UPDATE user_tokens SET revoked_at = $2 WHERE user_id = $1 AND revoked_at IS NULL RETURNING 1", [
            userId,
            now,
        ]),
        async insertPod(p) {
            await db.query(INSERT_POD.sql, INSERT_POD.values(p));
        },
        getPod: (id) => one("SELECT * FROM pods WHERE id = $1", [id], toPod),
        async findPodsByName(name) {
            return (await db.query("SELECT * FROM pods WHERE name = $1 ORDER BY seq", [name])).map(toPod);
        },
        async listPods(filter) {
            const rows = filter?.userId
                ? await db.query("SELECT p.* FROM pods p JOIN members m ON m.pod_id = p.id WHERE m.user_id = $1 ORDER BY p.seq", [filter.userId])
                : await db.query("SELECT * FROM pods ORDER BY seq");
            return rows.map(toPod);
        },
        async putMember(m) {
            await db.query(PUT_MEMBER.sql, PUT_MEMBER.values(m));
        },
        getMember: (podId, userId) => one("SELECT * FROM members WHERE pod_id = $1 AND user_id = $2", [podId, userId], toMember),
        async listMembers(podId) {
            return (await db.query("SELECT * FROM members WHERE pod_id = $1 ORDER BY seq", [podId])).map(toMember);
        },
        async removeMember(podId, userId) {
            return ((await count("DELETE FROM members WHERE pod_id = $1 AND user_id = $2 RETURNING 1", [podId, userId])) >
                0);
        },
    };
}
//# sourceMappingURL=people.js.map