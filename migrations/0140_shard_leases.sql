-- Shard ownership across instances (src/cluster/leases.ts, docs/scale-out.md). Agents are cut
-- into 1,024 virtual shards (FNV-1a of the agent id); each shard has at most one owner, the
-- only instance that decides for its agents. An owner renews its leases every few hundred
-- milliseconds; a lease not renewed for SHARD_LEASE_TTL_MS may be claimed by another instance.
--
-- Fencing: every claim raises the shard's epoch while holding the shard's advisory lock
-- exclusively; every audit batch takes the same lock shared and checks, in its own
-- transaction, that the epoch it was decided under is still current (asas_assert_fences).
-- So an owner that was paused, partitioned or slow when it lost a shard can never commit a
-- decision for it afterwards, and a new owner builds its agents' state only after every batch
-- of the old owner has committed or failed. The live database is authoritative for owners;
-- the sandbox database carries the same epochs (a claim raises them there too before the new
-- owner serves), because its audit batches commit there.
create table shard_leases (
  shard int primary key,
  owner text,
  epoch bigint not null default 0,
  expires_at timestamptz not null default '-infinity'
);
insert into shard_leases (shard) select s from generate_series(0, 1023) as s;

-- Takes each shard's advisory lock until the end of the transaction, in shard order (so two
-- lockers never wait for each other crosswise): shared for audit batches, exclusive for claims.
create function asas_lock_shards(p_shards int[], p_exclusive boolean) returns void
language plpgsql as $$
declare
  s int;
begin
  foreach s in array (select array_agg(x order by x) from unnest(p_shards) as x) loop
    if p_exclusive then
      perform pg_advisory_xact_lock(1095977299, s);
    else
      perform pg_advisory_xact_lock_shared(1095977299, s);
    end if;
  end loop;
end $$;

-- Refuses (SQLSTATE P0F01, a row fault: the batch is split so other shards' rows commit) a
-- batch decided under an epoch that is no longer its shard's.
create function asas_assert_fences(p_shards int[], p_epochs bigint[]) returns void
language plpgsql as $$
declare
  stale int;
begin
  perform asas_lock_shards(p_shards, false);
  select count(*) into stale
  from unnest(p_shards, p_epochs) as f(shard, epoch)
  left join shard_leases l on l.shard = f.shard
  where l.epoch is distinct from f.epoch;
  if stale > 0 then
    raise exception using errcode = 'P0F01', message = 'shard lease lost: a newer owner holds the shard';
  end if;
end $$;

-- Claims for p_owner those of p_shards that are free (no owner, or a lease that expired),
-- raising their epochs, with each shard's advisory lock held exclusively (in shard order), so
-- the claim waits for every audit batch still committing under the old epoch. Returns what it
-- claimed.
create function asas_claim_shards(p_owner text, p_shards int[], p_ttl_ms int)
returns table (shard int, epoch bigint)
language plpgsql as $$
begin
  perform asas_lock_shards(p_shards, true);
  return query
    update shard_leases l
    set owner = p_owner, epoch = l.epoch + 1,
        expires_at = now() + make_interval(secs => p_ttl_ms / 1000.0)
    where l.shard = any(p_shards) and (l.owner is null or l.expires_at < now())
    returning l.shard, l.epoch;
end $$;

-- The sandbox database's copy of the epochs: raised to the live database's before the new
-- owner serves a shard, under the same exclusive locks.
create function asas_raise_epochs(p_shards int[], p_epochs bigint[]) returns void
language plpgsql as $$
begin
  perform asas_lock_shards(p_shards, true);
  update shard_leases l set epoch = greatest(l.epoch, f.epoch)
  from unnest(p_shards, p_epochs) as f(shard, epoch)
  where l.shard = f.shard;
end $$;
