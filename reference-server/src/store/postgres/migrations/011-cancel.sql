-- Cancellation (feature `cancel`, CAP-CANCEL). A cancelled event is terminal (state 'cancelled'): it keeps
-- its attempts and lease, and records why, when and by whom, and which delivery was held when it was
-- cancelled (null when none was): the cancellation watch answers that delivery only.
ALTER TABLE events ADD COLUMN cancel_reason TEXT;
ALTER TABLE events ADD COLUMN cancelled_at BIGINT;
ALTER TABLE events ADD COLUMN cancelled_by_kind TEXT;
ALTER TABLE events ADD COLUMN cancelled_by_id TEXT;
ALTER TABLE events ADD COLUMN cancelled_attempts INTEGER;
-- Double texting: the ids of the events whose deliveries this event's message cancelled.
ALTER TABLE events ADD COLUMN supersedes JSON;
-- Each installation's double-texting policy: 'enqueue' (every installation so far) or 'interrupt'.
ALTER TABLE installations ADD COLUMN double_texting TEXT NOT NULL DEFAULT 'enqueue';
-- The stored states gain 'cancelled'. Validated apart, so the table is read once without blocking writes
-- any longer than the column changes above do.
ALTER TABLE events DROP CONSTRAINT events_state_check;
ALTER TABLE events ADD CONSTRAINT events_state_check
  CHECK (state IN ('pending', 'leased', 'acked', 'failed', 'cancelled')) NOT VALID;
ALTER TABLE events VALIDATE CONSTRAINT events_state_check;
