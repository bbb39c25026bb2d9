-- The delivery history of each event, for the trace view (feature `trace-context`): the table, rows and
-- rules of SQLite's migration 012 (see there). Row triggers that name the columns whose change they are
-- about, with a WHEN: an ack (state, acked_at, result) and a claim of a pending event run no trigger
-- function. A statement-level trigger with transition tables would run one function per statement, but it
-- cannot name columns: every ack and claim would capture its rows and call it.
CREATE TABLE event_history (
  seq              BIGINT GENERATED ALWAYS AS IDENTITY,
  event_seq        BIGINT NOT NULL,
  kind             TEXT NOT NULL,
  at               BIGINT NOT NULL,
  attempt          INTEGER NOT NULL,
  lease_was        BIGINT,
  lease_expires_at BIGINT,
  reason           TEXT,
  by_kind          TEXT,
  by_id            TEXT
);
CREATE INDEX event_history_event ON event_history (event_seq);

-- The store's clock in epoch ms, for the transitions whose row carries no instant of its own.
CREATE FUNCTION event_history_now() RETURNS BIGINT LANGUAGE sql VOLATILE AS
  $$ SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint $$;

-- The lease of the delivery OLD held had ended by `at` (neither released nor given up): it expired.
CREATE FUNCTION event_history_expired(prev events, settled_at BIGINT) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF prev.state = 'leased' AND prev.release_attempts IS DISTINCT FROM prev.attempts
     AND prev.lease_expires_at <= settled_at THEN
    INSERT INTO event_history (event_seq, kind, at, attempt, lease_was)
    VALUES (prev.seq, 'expired', prev.lease_expires_at, prev.attempts, prev.lease_expires_at);
  END IF;
END
$$;

-- A claim that finds the last delivery's lease ended.
CREATE FUNCTION event_history_reclaimed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM event_history_expired(OLD, OLD.lease_expires_at);
  RETURN NULL;
END
$$;
CREATE TRIGGER event_history_reclaimed AFTER UPDATE OF attempts ON events
  FOR EACH ROW WHEN (NEW.attempts > OLD.attempts AND OLD.state = 'leased'
                     AND OLD.release_attempts IS DISTINCT FROM OLD.attempts)
  EXECUTE FUNCTION event_history_reclaimed();

-- A renew: the delivery stays, its lease moves (a release moves it too, and marks release_attempts).
CREATE FUNCTION event_history_renewed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO event_history (event_seq, kind, at, attempt, lease_was, lease_expires_at)
  VALUES (NEW.seq, 'renewed', event_history_now(), NEW.attempts, OLD.lease_expires_at, NEW.lease_expires_at);
  RETURN NULL;
END
$$;
CREATE TRIGGER event_history_renewed AFTER UPDATE OF lease_expires_at ON events
  FOR EACH ROW WHEN (NEW.attempts = OLD.attempts AND OLD.state = 'leased' AND NEW.state = 'leased'
                     AND NEW.release_attempts IS NOT DISTINCT FROM OLD.release_attempts)
  EXECUTE FUNCTION event_history_renewed();

-- A release: ready again at available_at, or failed at once on the last attempt.
CREATE FUNCTION event_history_released() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO event_history (event_seq, kind, at, attempt, lease_was, lease_expires_at, reason)
  VALUES (NEW.seq, 'released',
          CASE WHEN NEW.state = 'failed' THEN NEW.failed_at ELSE event_history_now() END,
          NEW.attempts, OLD.lease_expires_at, CASE WHEN NEW.state = 'leased' THEN NEW.available_at END,
          NEW.release_reason);
  RETURN NULL;
END
$$;
CREATE TRIGGER event_history_released AFTER UPDATE OF release_attempts ON events
  FOR EACH ROW WHEN (NEW.release_attempts IS NOT DISTINCT FROM NEW.attempts
                     AND OLD.release_attempts IS DISTINCT FROM NEW.release_attempts)
  EXECUTE FUNCTION event_history_released();

-- Failed (retired, released on the last attempt, uninstalled): the lease that had ended first, if one had.
CREATE FUNCTION event_history_failed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM event_history_expired(OLD, NEW.failed_at);
  INSERT INTO event_history (event_seq, kind, at, attempt, lease_was, reason)
  VALUES (NEW.seq, 'failed', NEW.failed_at, NEW.attempts, OLD.lease_expires_at, NEW.fail_reason);
  RETURN NULL;
END
$$;
CREATE TRIGGER event_history_failed AFTER UPDATE OF failed_at ON events
  FOR EACH ROW WHEN (NEW.state = 'failed' AND OLD.state <> 'failed')
  EXECUTE FUNCTION event_history_failed();

-- Cancelled: the lease that had ended first, if one had, then the cancel with its canceller.
CREATE FUNCTION event_history_cancelled() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM event_history_expired(OLD, NEW.cancelled_at);
  INSERT INTO event_history (event_seq, kind, at, attempt, lease_was, reason, by_kind, by_id)
  VALUES (NEW.seq, 'cancelled', NEW.cancelled_at, NEW.attempts, OLD.lease_expires_at, NEW.cancel_reason,
          NEW.cancelled_by_kind, NEW.cancelled_by_id);
  RETURN NULL;
END
$$;
CREATE TRIGGER event_history_cancelled AFTER UPDATE OF cancelled_at ON events
  FOR EACH ROW WHEN (NEW.state = 'cancelled' AND OLD.state <> 'cancelled')
  EXECUTE FUNCTION event_history_cancelled();

-- Pruned with its event.
CREATE FUNCTION event_history_pruned() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM event_history WHERE event_seq = OLD.seq;
  RETURN NULL;
END
$$;
CREATE TRIGGER event_history_pruned AFTER DELETE ON events
  FOR EACH ROW EXECUTE FUNCTION event_history_pruned();

-- The message that enqueued an event (its cause), written once with the payload; the trace view of a
-- message finds its events through it.
ALTER TABLE event_payloads ADD COLUMN message_id TEXT COLLATE "C";
CREATE INDEX event_payloads_message ON event_payloads (message_id) WHERE message_id IS NOT NULL;
