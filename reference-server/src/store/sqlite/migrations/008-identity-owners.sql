-- Every agent identity gets an owner: the human who may install it into pods and mint its runtime tokens
-- (a token speaks for the identity in every pod, so only its owner may create one). Existing identities
-- are owned by the human who authorized their first installation, which is who created them.
ALTER TABLE agent_identities ADD COLUMN owner_id TEXT;
UPDATE agent_identities SET owner_id = (
  SELECT i.authorized_by FROM installations i WHERE i.agent_id = agent_identities.id ORDER BY i.seq LIMIT 1
);
