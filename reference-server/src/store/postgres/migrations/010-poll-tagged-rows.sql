-- The claim of a poll named by pollId is one statement (events/claim.ts, pollClaimSql), and polls with the
-- same (agent, pollId) must be serialised: the second must see what the first claimed. A lock taken by the
-- statement itself does not refresh its snapshot (taken when it began), so this function takes the
-- pollId's transaction lock and then reads the agent's running leases tagged with that pollId in a
-- snapshot of its own (a VOLATILE function's query gets a fresh one under READ COMMITTED). Its filter is
-- the events_leased range of the agent's running leases; which of them are still held is the statement's
-- to say, by the lease rules. The lock key is the one earlier kernels took, so replicas of both serialise
-- together during an upgrade.
CREATE FUNCTION poll_tagged_rows(agent TEXT, poll TEXT, now BIGINT) RETURNS SETOF events
  LANGUAGE plpgsql VOLATILE ROWS 10 AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended(agent || E'\n' || poll, 11));
  RETURN QUERY SELECT * FROM events WHERE agent_id = agent AND state = 'leased' AND lease_expires_at > now
                                     AND poll_id = poll;
END
$$;
-- Found through events_leased, as above: events_poll took an entry for every delivery made under a pollId
-- (every poll of the SDK carries one), while a driver holds few leases when it polls.
DROP INDEX events_poll;
