-- The CAP kernel's PostgreSQL schema, version 1. Applied by migrate.ts inside one transaction under an
-- advisory lock, into the store's schema (search_path). Times are epoch milliseconds (BIGINT); JSON values
-- are `json` (not jsonb) so payloads, metadata and replayed responses come back byte-for-byte, key order
-- included. `seq` columns record insertion order, which is what "oldest first" means in the contract.

CREATE TABLE users (
  seq        BIGINT GENERATED ALWAYS AS IDENTITY,
  id         TEXT PRIMARY KEY,
  name       TEXT NOT NULL,
  is_admin   BOOLEAN NOT NULL,
  created_at BIGINT NOT NULL,
  deleted_at BIGINT
);
CREATE INDEX users_name ON users (name, seq) WHERE deleted_at IS NULL;

CREATE TABLE user_tokens (
  id         TEXT PRIMARY KEY,
  user_id    TEXT NOT NULL,
  hash       TEXT NOT NULL UNIQUE,
  label      TEXT,
  created_at BIGINT NOT NULL,
  revoked_at BIGINT
);
CREATE INDEX user_tokens_user ON user_tokens (user_id);

CREATE TABLE pods (
  seq        BIGINT GENERATED ALWAYS AS IDENTITY,
  id         TEXT PRIMARY KEY,
  name       TEXT NOT NULL,
  created_by TEXT NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE INDEX pods_name ON pods (name, seq);

CREATE TABLE members (
  seq      BIGINT GENERATED ALWAYS AS IDENTITY,
  pod_id   TEXT NOT NULL,
  user_id  TEXT NOT NULL,
  role     TEXT NOT NULL,
  added_at BIGINT NOT NULL,
  PRIMARY KEY (pod_id, user_id)
);
CREATE INDEX members_user ON members (user_id);

CREATE TABLE registry_agents (
  seq          BIGINT GENERATED ALWAYS AS IDENTITY,
  name         TEXT PRIMARY KEY,
  manifest     JSON NOT NULL,
  published_by TEXT NOT NULL,
  created_at   BIGINT NOT NULL,
  updated_at   BIGINT NOT NULL
);

CREATE TABLE agent_identities (
  id          TEXT PRIMARY KEY,
  agent_name  TEXT NOT NULL,
  instance_id TEXT NOT NULL,
  created_at  BIGINT NOT NULL,
  UNIQUE (agent_name, instance_id)
);

CREATE TABLE installations (
  seq               BIGINT GENERATED ALWAYS AS IDENTITY,
  id                TEXT PRIMARY KEY,
  agent_id          TEXT NOT NULL,
  agent_name        TEXT NOT NULL,
  instance_id       TEXT NOT NULL,
  pod_id            TEXT NOT NULL,
  scopes            JSON NOT NULL,
  message_posted    BOOLEAN NOT NULL,
  installed_by_kind TEXT NOT NULL,
  installed_by_id   TEXT NOT NULL,
  authorized_by     TEXT NOT NULL,
  status            TEXT NOT NULL,
  created_at        BIGINT NOT NULL,
  uninstalled_at    BIGINT,
  uninstalled_by    TEXT
);
-- One active installation per identity and pod: concurrent installs cannot both succeed.
CREATE UNIQUE INDEX installations_one_active ON installations (agent_id, pod_id) WHERE status = 'active';
CREATE INDEX installations_pod ON installations (pod_id, seq);
CREATE INDEX installations_agent ON installations (agent_id, seq);

CREATE TABLE runtime_tokens (
  seq             BIGINT GENERATED ALWAYS AS IDENTITY,
  id              TEXT PRIMARY KEY,
  hash            TEXT NOT NULL UNIQUE,
  agent_id        TEXT NOT NULL,
  installation_id TEXT NOT NULL,
  pod_id          TEXT NOT NULL,
  issued_by       TEXT NOT NULL,
  label           TEXT,
  created_at      BIGINT NOT NULL,
  last_used_at    BIGINT,
  revoked_at      BIGINT
);
CREATE INDEX runtime_tokens_installation ON runtime_tokens (installation_id, seq);
CREATE INDEX runtime_tokens_agent ON runtime_tokens (agent_id, seq);
CREATE INDEX runtime_tokens_issuer ON runtime_tokens (issued_by) WHERE revoked_at IS NULL;

CREATE TABLE events (
  seq              BIGINT GENERATED ALWAYS AS IDENTITY,
  id               TEXT PRIMARY KEY,
  agent_id         TEXT NOT NULL,
  pod_id           TEXT NOT NULL,
  type             TEXT NOT NULL,
  payload          JSON,
  created_at       BIGINT NOT NULL,
  state            TEXT NOT NULL CHECK (state IN ('pending', 'leased', 'acked', 'failed')),
  attempts         INTEGER NOT NULL DEFAULT 0,
  -- attempts at the last operator requeue: the budget is maxAttempts deliveries after it (CAP-LEASE-5)
  attempt_base     INTEGER NOT NULL DEFAULT 0,
  lease_expires_at BIGINT,
  acked_at         BIGINT,
  result           JSON,
  failed_at        BIGINT,
  fail_reason      TEXT
);
-- The claim walks this index in order: open events of one agent, oldest first (style.md, "Queues in SQL").
CREATE INDEX events_open ON events (agent_id, seq) WHERE state IN ('pending', 'leased');
CREATE INDEX events_failed ON events (failed_at DESC, seq DESC) WHERE state = 'failed';
CREATE INDEX events_pod ON events (pod_id, seq);

CREATE TABLE messages (
  seq                 BIGINT GENERATED ALWAYS AS IDENTITY,
  id                  TEXT PRIMARY KEY,
  pod_id              TEXT NOT NULL,
  content             TEXT NOT NULL,
  author_kind         TEXT NOT NULL,
  author_id           TEXT NOT NULL,
  author_name         TEXT NOT NULL,
  reply_to_message_id TEXT,
  metadata            JSON,
  created_at          BIGINT NOT NULL
);
CREATE INDEX messages_pod ON messages (pod_id, seq);

CREATE TABLE memory (
  agent_id       TEXT PRIMARY KEY,
  content        TEXT NOT NULL,
  sections       JSON NOT NULL,
  source_runtime TEXT,
  sync_key       TEXT,
  updated_at     BIGINT NOT NULL
);

CREATE TABLE idempotency_records (
  agent_id     TEXT NOT NULL,
  key          TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  pod_id       TEXT NOT NULL,
  status       INTEGER NOT NULL,
  body         JSON,
  created_at   BIGINT NOT NULL,
  PRIMARY KEY (agent_id, key)
);
CREATE INDEX idempotency_records_created ON idempotency_records (created_at);

CREATE TABLE decisions (
  seq               BIGINT GENERATED ALWAYS AS IDENTITY,
  id                TEXT PRIMARY KEY,
  pod_id            TEXT NOT NULL,
  agent_id          TEXT NOT NULL,
  message_id        TEXT NOT NULL,
  decision_class    TEXT NOT NULL,
  title             TEXT NOT NULL,
  question          TEXT NOT NULL,
  options           JSON NOT NULL,
  thread_root_id    TEXT,
  context           TEXT,
  created_at        BIGINT NOT NULL,
  answered_at       BIGINT,
  answered_by       TEXT,
  answer_option     TEXT,
  answer_message_id TEXT
);
CREATE INDEX decisions_pod ON decisions (pod_id, seq);

CREATE TABLE join_codes (
  seq                     BIGINT GENERATED ALWAYS AS IDENTITY,
  id                      TEXT PRIMARY KEY,
  hash                    TEXT NOT NULL UNIQUE,
  pod_id                  TEXT NOT NULL,
  agent_name              TEXT,
  scopes                  JSON NOT NULL,
  created_by              TEXT NOT NULL,
  created_at              BIGINT NOT NULL,
  expires_at              BIGINT NOT NULL,
  used_at                 BIGINT,
  used_by_installation_id TEXT
);
CREATE INDEX join_codes_pod ON join_codes (pod_id, seq);
