-- An agent's pace (bursts at one merchant, approvals within two minutes) is learned from its first
-- approvals (src/decision/outcome.ts). While the database is slow, our answers are slow, and an
-- agent that waits for each answer before its next request is paced by us, not by itself: a pace
-- learned then is ours, and the agent's own pace afterwards would look like a spike. A decision
-- made while this instance's group commits took 100 ms or more a round trip is marked here, so
-- the live fold and a reload from these rows both leave it out of the learning
-- (docs/decision-engine.md "Velocity"). Null: not marked (rows written before this column, and
-- every decision of a database answering in time). Nullable without a default: no rewrite.
alter table authorizations add column if not exists answers_slow boolean;
