-- The pod's events, newest first, found through event_payloads instead of events. Every claim, ack and
-- renew writes a new version of its event's row, and PostgreSQL puts an entry for that version into every
-- index of the table (no index column changes, but each index names `state` in its predicate or is keyed
-- elsewhere, so the update is not HOT). events_pod (pod_id, seq) took one such entry per write, beside the
-- old one in a leaf shared by all of a pod's agents. event_payloads rows are written once, at enqueue, so
-- an index there costs only that insert. The listing joins back to events by id (events_pkey): event_id.
-- Same names in both dialects (SQLite migration 007). The UPDATE reads every event once.
ALTER TABLE event_payloads ADD COLUMN pod_id TEXT COLLATE "C";
ALTER TABLE event_payloads ADD COLUMN event_id TEXT COLLATE "C";
UPDATE event_payloads p SET pod_id = e.pod_id, event_id = e.id FROM events e WHERE e.seq = p.seq;
CREATE INDEX event_payloads_pod ON event_payloads (pod_id, seq);
DROP INDEX events_pod;
