-- Payloads apart from the queue rows (kernel perf, measured on the drain): every claim, ack and renew
-- rewrites its event's row, and each page a commit dirties is appended to the WAL whole (two writes per
-- page). With the ~300-byte payload inline a 4 KiB page held about 9 events, so a drain of agents whose
-- events interleave dirtied a page per event or two; without it the queue row is ~130 bytes. A payload is
-- written once, at enqueue, and only read afterwards.
CREATE TABLE event_payloads (seq INTEGER PRIMARY KEY, payload TEXT NOT NULL);
INSERT INTO event_payloads (seq, payload) SELECT seq, payload FROM events;
ALTER TABLE events DROP COLUMN payload;
