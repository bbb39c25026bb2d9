-- One name per table and index in both dialects (the schema-parity test compares the live schemas), and
-- the `seq` (insertion order) that PostgreSQL keeps on users, members and registry entries. SQLite cannot
-- add an INTEGER PRIMARY KEY column, so those three tables are rebuilt, each row keeping its rowid as its
-- seq (insertion order unchanged); pod_members becomes members. Indexes SQLite cannot rename are
-- recreated under their new names. Nothing else changes.
CREATE TABLE users_new (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  is_admin INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  deleted_at INTEGER
);
INSERT INTO users_new (seq, id, name, is_admin, created_at, deleted_at)
  SELECT rowid, id, name, is_admin, created_at, deleted_at FROM users ORDER BY rowid;
DROP TABLE users;
ALTER TABLE users_new RENAME TO users;
CREATE INDEX users_name ON users (name);

CREATE TABLE members (
  seq INTEGER PRIMARY KEY,
  pod_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  role TEXT NOT NULL,
  added_at INTEGER NOT NULL,
  UNIQUE (pod_id, user_id)
);
INSERT INTO members (seq, pod_id, user_id, role, added_at)
  SELECT rowid, pod_id, user_id, role, added_at FROM pod_members ORDER BY rowid;
DROP TABLE pod_members;
CREATE INDEX members_user ON members (user_id);

CREATE TABLE registry_agents_new (
  seq INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  manifest TEXT NOT NULL,
  published_by TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
INSERT INTO registry_agents_new (seq, name, manifest, published_by, created_at, updated_at)
  SELECT rowid, name, manifest, published_by, created_at, updated_at FROM registry_agents ORDER BY rowid;
DROP TABLE registry_agents;
ALTER TABLE registry_agents_new RENAME TO registry_agents;

DROP INDEX events_ready;
CREATE INDEX events_open ON events (agent_id, seq) WHERE state IN ('pending', 'leased');
DROP INDEX idempotency_created;
CREATE INDEX idempotency_records_created ON idempotency_records (created_at);
