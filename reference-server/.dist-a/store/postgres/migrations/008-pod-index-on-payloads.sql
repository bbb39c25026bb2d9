-- The pod's events, newest first, found through event_payloads instead of events. Every claim, ack and
-- renew writes a new version of its event's row, and PostgreSQL puts an entry for that version into every
-- index of the table (the update changes `state`, which the partial indexes' predicates name, so it is
-- never HOT). events_pod (pod_id, seq) took one such entry per write, beside the old one, in leaves shared
-- by all of a pod's agents. event_payloads rows are written once, at enqueue, so
-- an index there costs only that insert. The listing joins back to events by id (events_pkey): event_id.
-- Same names in both dialects (SQLite migration 007). Run inside the migration's transaction: the UPDATE
-- rewrites every payload row once, and enqueues wait for it and for the index build, for as long as a pass
-- over both tables takes.
ALTER TABLE event_payloads ADD COLUMN pod_id TEXT COLLATE "C";
ALTER TABLE event_payloads ADD COLUMN event_id TEXT COLLATE "C";
UPDATE event_payloads p SET pod_id = e.pod_id, event_id = e.id FROM events e WHERE e.seq = p.seq;
CREATE INDEX event_payloads_pod ON event_payloads (pod_id, seq);
DROP INDEX events_pod;
