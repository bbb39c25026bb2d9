-- The pod's events, newest first, found through event_payloads instead of events: the same index names as
-- on PostgreSQL (its migration 008, where events_pod took an entry on every claim, ack and renew). Here an
-- update of events touches only the indexes of the columns it changes, so this moves the index without
-- changing the cost of a write. The listing joins back to events by seq (the rowid); event_id is kept for
-- the same columns in both dialects.
ALTER TABLE event_payloads ADD COLUMN pod_id TEXT;
ALTER TABLE event_payloads ADD COLUMN event_id TEXT;
UPDATE event_payloads SET (pod_id, event_id) = (SELECT e.pod_id, e.id FROM events e WHERE e.seq = event_payloads.seq);
CREATE INDEX event_payloads_pod ON event_payloads (pod_id, seq);
DROP INDEX events_pod;
