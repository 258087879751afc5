-- Agent keys (docs/auth.md "Agent keys"): a Principal credential bound to one of the Principal's
-- agents. It reaches only that agent's decisions, mandates, holds and step-ups; every other
-- credential leaves agent_id null. The listing of an agent's keys reads the index.
alter table credentials add column if not exists agent_id text references agents (id);
create index if not exists credentials_agent_idx on credentials (agent_id) where agent_id is not null;
