export function statementCache(db) {
    const cache = new Map();
    return (sql) => {
        let stmt = cache.get(sql);
        if (!stmt) {
            stmt = db.prepare(sql);
            cache.set(sql, stmt);
        }
        return stmt;
    };
}
//# sourceMappingURL=statement-cache.js.map