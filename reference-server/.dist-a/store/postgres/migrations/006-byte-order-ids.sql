-- Ids compared byte by byte. The id columns the queue's indexes are keyed on (events_pkey, events_open,
-- events_leased, events_poll, events_pod) took the database's default collation, and with any collation
-- but "C" every B-tree comparison went through strcoll: a fifth of PostgreSQL's time in the batch-ack
-- drain was index search and insertion. Ids are opaque ASCII tokens whose only order the store uses is
-- equality, so "C" changes no answer, and it is the order SQLite's BINARY columns already have. Changing
-- the collation rebuilds the indexes on these columns (the table itself is not rewritten).
ALTER TABLE events
  ALTER COLUMN id TYPE TEXT COLLATE "C",
  ALTER COLUMN agent_id TYPE TEXT COLLATE "C",
  ALTER COLUMN pod_id TYPE TEXT COLLATE "C",
  ALTER COLUMN poll_id TYPE TEXT COLLATE "C";
