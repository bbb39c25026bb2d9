-- One name per table and index in both dialects (the schema-parity test compares the live schemas). Here
-- only the unique index of active installations changes name; SQLite's 005 renames the rest to match.
ALTER INDEX installations_one_active RENAME TO installations_active;
