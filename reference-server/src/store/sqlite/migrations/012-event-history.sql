-- The delivery history of each event, for the trace view (feature `trace-context`): a row per transition
-- the event row itself does not keep, written by triggers on `events` so that the queue's statements stay
-- as they are. A delivery that ends in an ack leaves no row: the event row keeps its attempt, its lease and
-- the ack. A row is written only when a delivery is renewed, released, or found ended (claimed again,
-- retired or cancelled after its lease), and when the event fails or is cancelled. A claim is not a row:
-- the trace view reads it from the first row of its delivery (`lease_was`, the lease the claim gave) or
-- from the event row. Triggers name the columns whose change they are about, so that neither a claim nor
-- an ack runs one (a trigger that may fire also makes SQLite run an UPDATE in two passes): the `expired`
-- row of a claim that takes an ended lease, and the `renewed` row, are written by those two statements'
-- own paths (events/claim.ts, events/settle.ts).
-- Kinds: `renewed` (lease_expires_at: the new end), `released` (reason; lease_expires_at: ready again),
-- `expired` (at the lease end), `failed` (reason), `cancelled` (reason, by). `at` is the row's own instant
-- where it has one (a lease end, failed_at, cancelled_at) and the store's clock otherwise.
CREATE TABLE event_history (
  seq INTEGER PRIMARY KEY,
  event_seq INTEGER NOT NULL,
  kind TEXT NOT NULL,
  at INTEGER NOT NULL,
  attempt INTEGER NOT NULL,
  lease_was INTEGER,
  lease_expires_at INTEGER,
  reason TEXT,
  by_kind TEXT,
  by_id TEXT
);
CREATE INDEX event_history_event ON event_history (event_seq);

-- A release: ready again at available_at, or failed at once on the last attempt.
CREATE TRIGGER event_history_released AFTER UPDATE OF release_attempts ON events
WHEN NEW.release_attempts IS NEW.attempts AND OLD.release_attempts IS NOT NEW.release_attempts
BEGIN
  INSERT INTO event_history (event_seq, kind, at, attempt, lease_was, lease_expires_at, reason)
  VALUES (NEW.seq, 'released',
          CASE WHEN NEW.state = 'failed' THEN NEW.failed_at
               ELSE CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER) END,
          NEW.attempts, OLD.lease_expires_at, CASE WHEN NEW.state = 'leased' THEN NEW.available_at END,
          NEW.release_reason);
END;

-- Failed (retired, released on the last attempt, uninstalled): the lease that had ended first, if one had.
CREATE TRIGGER event_history_failed AFTER UPDATE OF failed_at ON events
WHEN NEW.state = 'failed' AND OLD.state <> 'failed'
BEGIN
  INSERT INTO event_history (event_seq, kind, at, attempt, lease_was)
  SELECT NEW.seq, 'expired', OLD.lease_expires_at, OLD.attempts, OLD.lease_expires_at
   WHERE OLD.state = 'leased' AND (OLD.release_attempts IS NULL OR OLD.release_attempts <> OLD.attempts)
     AND OLD.lease_expires_at <= NEW.failed_at;
  INSERT INTO event_history (event_seq, kind, at, attempt, lease_was, reason)
  VALUES (NEW.seq, 'failed', NEW.failed_at, NEW.attempts, OLD.lease_expires_at, NEW.fail_reason);
END;

-- Cancelled: the lease that had ended first, if one had, then the cancel with its canceller.
CREATE TRIGGER event_history_cancelled AFTER UPDATE OF cancelled_at ON events
WHEN NEW.state = 'cancelled' AND OLD.state <> 'cancelled'
BEGIN
  INSERT INTO event_history (event_seq, kind, at, attempt, lease_was)
  SELECT NEW.seq, 'expired', OLD.lease_expires_at, OLD.attempts, OLD.lease_expires_at
   WHERE OLD.state = 'leased' AND (OLD.release_attempts IS NULL OR OLD.release_attempts <> OLD.attempts)
     AND OLD.lease_expires_at <= NEW.cancelled_at;
  INSERT INTO event_history (event_seq, kind, at, attempt, lease_was, reason, by_kind, by_id)
  VALUES (NEW.seq, 'cancelled', NEW.cancelled_at, NEW.attempts, OLD.lease_expires_at, NEW.cancel_reason,
          NEW.cancelled_by_kind, NEW.cancelled_by_id);
END;

-- Pruned with its event.
CREATE TRIGGER event_history_pruned AFTER DELETE ON events
BEGIN
  DELETE FROM event_history WHERE event_seq = OLD.seq;
END;

-- The message that enqueued an event (its cause), written once with the payload; the trace view of a
-- message finds its events through it.
ALTER TABLE event_payloads ADD COLUMN message_id TEXT;
CREATE INDEX event_payloads_message ON event_payloads (message_id) WHERE message_id IS NOT NULL;
