-- Leases by agent and expiry: the claim's retire step and the next-expiry look-up read only this agent's
-- leases that have ended (or the next one to end), instead of walking every open event of the agent in
-- events_ready/events_open order, whose cost grew with the backlog (kernel issue 10).
CREATE INDEX events_leased ON events (agent_id, lease_expires_at) WHERE state = 'leased';
