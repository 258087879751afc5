-- Service instances sharing this database (src/cluster/instances.ts). Each instance claims its
-- own row at start, beats every few seconds and deletes its row on a clean stop; rows of
-- instances that stopped beating are swept by whichever live instance gets to them first.
-- Per-instance shares of cluster-wide quotas (rate limits) divide by the live count.
create table instances (
  id text primary key,
  started_at timestamptz not null default now(),
  heartbeat_at timestamptz not null default now()
);
create index instances_heartbeat_idx on instances (heartbeat_at);

-- Idempotency store bounds (src/storage/idempotency-sweep.ts).
-- POST /authorize: the fingerprint of the request that first used an idempotency_key
-- (src/engine/idempotency.ts), so the same key with a different transaction is refused (422
-- idempotency_key_reuse) instead of replayed. Null on rows recorded before this migration.
alter table authorizations add column request_hash text;
-- The replayable responses: only these are swept (dropped after 24 hours or beyond the
-- per-Principal cap); the audit row itself and its key stay.
create index authorizations_replayable_idx on authorizations (principal_id, created_at desc)
  where response is not null;
-- Onboarding Idempotency-Key rows with a stored answer, newest first per Client (the cap).
create index idempotency_keys_stored_idx on idempotency_keys (client_id, created_at desc)
  where response_json is not null;
