-- Pending events apart from leased ones. events_open indexed every open event, pending or leased, so an
-- ack (leased → acked) removed an entry from it and from events_leased: two index leaves per agent in
-- every commit, and the commits of the one-ack drain were a fifth of the kernel's time. events_pending
-- holds only what has never been delivered (or was requeued); a claim reads it for new work and
-- events_leased for ended leases, and an ack leaves it alone. Same name and predicate in both dialects.
-- Built inside the migration's transaction (not CONCURRENTLY): writes to events wait while it builds, for
-- as long as one scan of the table takes.
DROP INDEX events_open;
CREATE INDEX events_pending ON events (agent_id, seq) WHERE state = 'pending';
