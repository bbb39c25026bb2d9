-- The claim of a poll named by pollId is one statement (events/claim.ts, pollClaimSql), and polls with the
-- same (agent, pollId) must be serialised: the second must see what the first claimed. A lock taken by the
-- statement itself does not refresh its snapshot (taken when it began), so this function takes the
-- pollId's transaction lock and then reads the rows tagged with that pollId in a snapshot of its own (a
-- VOLATILE function's query gets a fresh one under READ COMMITTED). Its filter is events_poll's predicate;
-- which of the rows are still held is the statement's to say, by the lease rules. The lock key is the one
-- earlier kernels took, so replicas of both serialise together during an upgrade.
CREATE FUNCTION poll_tagged_rows(agent TEXT, poll TEXT) RETURNS SETOF events
  LANGUAGE plpgsql VOLATILE ROWS 10 AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended(agent || E'\n' || poll, 11));
  RETURN QUERY SELECT * FROM events WHERE agent_id = agent AND poll_id = poll
                                     AND state = 'leased' AND poll_id IS NOT NULL;
END
$$;
