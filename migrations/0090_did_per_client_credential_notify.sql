-- A DID is unique within its Client, not across every tenant: one Client registering a DID
-- must not stop another Client from registering the same DID (issue 11, "DID squatting").
-- Every lookup by DID is scoped to the caller's Client, which this index serves.
alter table agents drop constraint if exists agents_did_key;
create unique index agents_client_did_key on agents (client_id, did);

-- Every change to a credential tells every instance to drop its cached entries (the keys of
-- src/auth/credential-store.ts: k:<env>:<base64 key hash>, i:<env>:<id>). A trigger makes the
-- notification part of the change's own transaction: it is delivered when the change commits,
-- whoever wrote it (any instance, the admin CLI through one, an operator's SQL), and never
-- lost to a crash between the commit and a separate NOTIFY.
create or replace function credential_evict_notify() returns trigger
language plpgsql as $$
declare
  payload text;
begin
  payload := 'k:' || old.environment || ':' || encode(old.key_hash, 'base64')
    || ' i:' || old.environment || ':' || old.id;
  if old.previous_key_hash is not null then
    payload := payload || ' k:' || old.environment || ':' || encode(old.previous_key_hash, 'base64');
  end if;
  perform pg_notify('credential_evict', payload);
  return null;
end;
$$;
create trigger credentials_evict_notify after update or delete on credentials
  for each row execute function credential_evict_notify();
