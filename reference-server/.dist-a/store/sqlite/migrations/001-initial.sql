-- The kernel's schema on SQLite. Times are epoch milliseconds; JSON values are TEXT.
-- Secrets are never stored: tokens and join codes only as SHA-256 hex.

CREATE TABLE users (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  is_admin INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  deleted_at INTEGER
);
CREATE INDEX users_name ON users (name);

CREATE TABLE user_tokens (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  hash TEXT NOT NULL UNIQUE,
  label TEXT,
  created_at INTEGER NOT NULL,
  revoked_at INTEGER
);
CREATE INDEX user_tokens_user ON user_tokens (user_id);

CREATE TABLE pods (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  created_by TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX pods_name ON pods (name);

CREATE TABLE pod_members (
  pod_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  role TEXT NOT NULL,
  added_at INTEGER NOT NULL,
  PRIMARY KEY (pod_id, user_id)
);
CREATE INDEX pod_members_user ON pod_members (user_id);

CREATE TABLE registry_agents (
  name TEXT PRIMARY KEY,
  manifest TEXT NOT NULL,
  published_by TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);

CREATE TABLE agent_identities (
  id TEXT PRIMARY KEY,
  agent_name TEXT NOT NULL,
  instance_id TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  UNIQUE (agent_name, instance_id)
);

CREATE TABLE installations (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  agent_id TEXT NOT NULL,
  agent_name TEXT NOT NULL,
  instance_id TEXT NOT NULL,
  pod_id TEXT NOT NULL,
  scopes TEXT NOT NULL,
  message_posted INTEGER NOT NULL,
  installed_by_kind TEXT NOT NULL,
  installed_by_id TEXT NOT NULL,
  authorized_by TEXT NOT NULL,
  status TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  uninstalled_at INTEGER,
  uninstalled_by TEXT
);
CREATE UNIQUE INDEX installations_active ON installations (agent_id, pod_id) WHERE status = 'active';
CREATE INDEX installations_pod ON installations (pod_id);
CREATE INDEX installations_agent ON installations (agent_id);

CREATE TABLE runtime_tokens (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  hash TEXT NOT NULL UNIQUE,
  agent_id TEXT NOT NULL,
  installation_id TEXT NOT NULL,
  pod_id TEXT NOT NULL,
  issued_by TEXT NOT NULL,
  label TEXT,
  created_at INTEGER NOT NULL,
  last_used_at INTEGER,
  revoked_at INTEGER
);
CREATE INDEX runtime_tokens_installation ON runtime_tokens (installation_id);
CREATE INDEX runtime_tokens_agent ON runtime_tokens (agent_id);
CREATE INDEX runtime_tokens_issuer ON runtime_tokens (issued_by);

-- The queue. seq is insertion order; claims walk events_ready in (agent_id, seq) order.
CREATE TABLE events (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  agent_id TEXT NOT NULL,
  pod_id TEXT NOT NULL,
  type TEXT NOT NULL,
  payload TEXT NOT NULL,
  state TEXT NOT NULL,
  attempts INTEGER NOT NULL,
  attempt_base INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  lease_expires_at INTEGER,
  acked_at INTEGER,
  result TEXT,
  failed_at INTEGER,
  fail_reason TEXT
);
CREATE INDEX events_ready ON events (agent_id, seq) WHERE state IN ('pending', 'leased');
CREATE INDEX events_pod ON events (pod_id, seq);
CREATE INDEX events_failed ON events (failed_at) WHERE state = 'failed';

CREATE TABLE messages (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  pod_id TEXT NOT NULL,
  content TEXT NOT NULL,
  author_kind TEXT NOT NULL,
  author_id TEXT NOT NULL,
  author_name TEXT NOT NULL,
  reply_to_message_id TEXT,
  metadata TEXT,
  created_at INTEGER NOT NULL
);
CREATE INDEX messages_pod ON messages (pod_id, seq);

CREATE TABLE memory (
  agent_id TEXT PRIMARY KEY,
  content TEXT NOT NULL,
  sections TEXT NOT NULL,
  source_runtime TEXT,
  sync_key TEXT,
  updated_at INTEGER NOT NULL
);

CREATE TABLE idempotency_records (
  agent_id TEXT NOT NULL,
  key TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  pod_id TEXT NOT NULL,
  status INTEGER NOT NULL,
  body TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (agent_id, key)
);
CREATE INDEX idempotency_created ON idempotency_records (created_at);

CREATE TABLE decisions (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  pod_id TEXT NOT NULL,
  agent_id TEXT NOT NULL,
  message_id TEXT NOT NULL,
  decision_class TEXT NOT NULL,
  title TEXT NOT NULL,
  question TEXT NOT NULL,
  options TEXT NOT NULL,
  thread_root_id TEXT,
  context TEXT,
  created_at INTEGER NOT NULL,
  answered_at INTEGER,
  answered_by TEXT,
  answer_option TEXT,
  answer_message_id TEXT
);
CREATE INDEX decisions_pod ON decisions (pod_id, seq);

CREATE TABLE join_codes (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  hash TEXT NOT NULL UNIQUE,
  pod_id TEXT NOT NULL,
  agent_name TEXT,
  scopes TEXT NOT NULL,
  created_by TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at INTEGER,
  used_by_installation_id TEXT
);
CREATE INDEX join_codes_pod ON join_codes (pod_id, seq);
