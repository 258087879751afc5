-- The replayable answers of keyed POST /authorize requests move off the audit row into a table
-- of their own. Kept on the row, every answer the idempotency sweep dropped (past the 24 h
-- retention or beyond a Principal's cap) rewrote its whole audit row: a new ~2 KB tuple and an
-- entry in each of the table's indexes, thousands a minute once a busy Principal is past its
-- cap. Here dropping an answer is a delete of a narrow row, and the audit row is written once.
-- The audit row keeps the key and the request fingerprint: a key whose answer is gone is still
-- refused (422 idempotency_key_expired), never decided again.
create table if not exists authorization_responses (
  authorization_id text primary key,
  principal_id text not null,
  -- The decision's time (authorizations.created_at): retention and the cap count from it.
  created_at timestamptz not null,
  -- The response body as it was answered; json, not jsonb: stored as sent, never converted.
  response json not null
);
-- Each Principal's stored answers, oldest first: the sweep's retention and cap read it alone.
create index if not exists authorization_responses_principal_idx
  on authorization_responses (principal_id, created_at, authorization_id);

insert into authorization_responses (authorization_id, principal_id, created_at, response)
select id, principal_id, created_at, response::json from authorizations where response is not null
on conflict (authorization_id) do nothing;
-- authorizations.response stays, null on new rows: an instance of the previous release writes it
-- during a rolling deploy; readers take it when the row has no answer here, and the sweep clears
-- it after the retention (through authorizations_replayable_idx).
update authorizations set response = null where response is not null;
