-- The audit batch's fence (migrations/0140_shard_leases.sql), same contract, a sixth of the cost.
-- The first form joined unnest(p_shards, p_epochs) to shard_leases in one query; inside
-- PL/pgSQL its cached generic plan, which cannot see the arrays' length, hashed all 1,024 lease
-- rows for every batch: ~115 µs of the database's CPU per group commit, 29% of the commit
-- statements' time at 1,000 decisions/s (pg_stat_statements, docs/benchmarks.md). This form
-- walks the batch's shards in shard order (the lock order every locker keeps), takes each
-- shard's advisory lock shared and reads its epoch by the primary key: ~20 µs for two shards.
create or replace function asas_assert_fences(p_shards int[], p_epochs bigint[]) returns void
language plpgsql as $$
declare
  f record;
  current bigint;
begin
  for f in select u.shard, u.epoch from unnest(p_shards, p_epochs) as u(shard, epoch) order by u.shard loop
    perform pg_advisory_xact_lock_shared(1095977299, f.shard);
    select l.epoch into current from shard_leases l where l.shard = f.shard;
    if current is distinct from f.epoch then
      raise exception using errcode = 'P0F01', message = 'shard lease lost: a newer owner holds the shard';
    end if;
  end loop;
end $$;
