-- Payloads apart from the queue rows, as on SQLite (its migration 004, measured there on the drain): every
-- claim, ack and renew writes a new version of its event's row, and with the payload inline that version
-- (and its WAL record) carried the whole payload each time. A payload is written once, at enqueue, and
-- only read afterwards, joined by seq (the same tables in both dialects, checked by the schema-parity test).
CREATE TABLE event_payloads (
  seq     BIGINT PRIMARY KEY,
  payload JSON NOT NULL
);
INSERT INTO event_payloads (seq, payload) SELECT seq, COALESCE(payload, 'null'::json) FROM events;
ALTER TABLE events DROP COLUMN payload;
