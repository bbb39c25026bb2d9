-- A repeated poll's deliveries are found among the agent's running leases (events_leased, which the claim
-- reads anyway), not by an index of their own: events_poll took an entry for every delivery made under a
-- pollId — written by the claim, removed by the ack — and every poll of the SDK carries one, while a
-- driver holds few leases when it polls.
DROP INDEX events_poll;
