-- Release (CAP-REL) and retry-safe polls (CAP-REPLAY). A released delivery stays `leased` with its lease
-- moved to the end of the release delay, so the claim, the lease-expiry wake-ups and the retire step treat
-- it like any lease that ends then; release_attempts = attempts marks that delivery as given back (no longer
-- held: renew, release and replays refuse it). A later claim raises attempts, which unmarks it by itself.
ALTER TABLE events ADD COLUMN release_attempts INTEGER;
ALTER TABLE events ADD COLUMN release_reason TEXT;
ALTER TABLE events ADD COLUMN available_at INTEGER;
-- The pollId a delivery was claimed under, and that delivery's attempts (a later claim makes it stale).
ALTER TABLE events ADD COLUMN poll_id TEXT;
ALTER TABLE events ADD COLUMN poll_attempts INTEGER;
CREATE INDEX events_poll ON events (agent_id, poll_id) WHERE state = 'leased' AND poll_id IS NOT NULL;
