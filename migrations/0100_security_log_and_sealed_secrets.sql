-- Issue 11, "Credentials and scopes": the append-only security log, and room for secrets
-- encrypted at rest. Applied to both databases like every migration: each database keeps the
-- security records of the actions taken in it.

-- Who did what to which security-relevant object, when and from where. Written in the same
-- transaction as the action wherever the action is transactional (src/audit/security-log.ts).
-- Never a raw key or secret: `changes` holds what changed, without secrets.
create table security_log (
  -- Collation "C": ids compare bytewise, the same in SQL paging and in the merge of both databases.
  id text collate "C" primary key,
  -- Database server time; clock_timestamp() so records of one transaction keep their order.
  occurred_at timestamptz not null default clock_timestamp(),
  actor_kind text not null check (actor_kind in ('operator', 'client', 'principal', 'anonymous')),
  -- The credential (acr_) the actor authenticated with; null for the operator (X-Admin-Key)
  -- and for an anonymous caller (a rejected X-Admin-Key).
  actor_credential_id text,
  actor_client_id text,
  actor_principal_id text,
  action text not null,
  target_type text not null,
  target_id text,
  changes jsonb not null default '{}'::jsonb,
  -- Client address as resolved by the edge through TRUSTED_PROXIES, and the request's id.
  ip text,
  request_id text
);
create index security_log_page_idx on security_log (occurred_at desc, id desc);
create index security_log_action_idx on security_log (action, occurred_at desc);

-- Append-only, enforced by the database for every role and every code path: UPDATE, DELETE and
-- TRUNCATE raise. (A superuser can still drop the trigger; that is a schema change, not a write.)
create function security_log_append_only() returns trigger language plpgsql as $$
begin
  raise exception 'security_log is append-only: % is not allowed', tg_op
    using errcode = 'insufficient_privilege';
end
$$;
create trigger security_log_no_update_delete before update or delete on security_log
  for each row execute function security_log_append_only();
create trigger security_log_no_truncate before truncate on security_log
  for each statement execute function security_log_append_only();

-- Secrets encrypted at rest (src/secrets/): the sealed envelope lives in a new column, and the
-- plaintext column becomes nullable. Rows written before this migration still hold plaintext;
-- the service seals them at start-up, before it serves a request, and clears the plaintext.
alter table signing_keys add column private_key_sealed text;
alter table signing_keys alter column private_key_pkcs8 drop not null;
alter table webhooks add column secret_sealed text;
alter table webhooks alter column secret drop not null;
