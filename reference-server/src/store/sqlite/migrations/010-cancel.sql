-- Cancellation (feature `cancel`, CAP-CANCEL). A cancelled event is terminal (state 'cancelled'): it keeps
-- its attempts and lease, and records why, when and by whom, and which delivery was held when it was
-- cancelled (null when none was): the cancellation watch answers that delivery only.
ALTER TABLE events ADD COLUMN cancel_reason TEXT;
ALTER TABLE events ADD COLUMN cancelled_at INTEGER;
ALTER TABLE events ADD COLUMN cancelled_by_kind TEXT;
ALTER TABLE events ADD COLUMN cancelled_by_id TEXT;
ALTER TABLE events ADD COLUMN cancelled_attempts INTEGER;
-- Double texting: the ids of the events whose deliveries this event's message cancelled (a JSON array).
ALTER TABLE events ADD COLUMN supersedes TEXT;
-- Each installation's double-texting policy: 'enqueue' (every installation so far) or 'interrupt'.
ALTER TABLE installations ADD COLUMN double_texting TEXT NOT NULL DEFAULT 'enqueue';
