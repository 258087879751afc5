-- An instance's wall clock against the database's, in milliseconds (positive: ahead), as it
-- measured at its last lease beat (src/cluster/leases.ts), less the measurement's uncertainty.
-- Shards are preferred to instances within MAX_CLOCK_OFFSET_MS (unless none is): decisions are
-- stamped with the deciding instance's clock, and a skewed owner lets an agent's spend straddle
-- a calendar boundary twice when its shard moves. Null: not measured yet (or an earlier version).
alter table instances add column if not exists clock_offset_ms integer;
