-- A step-up the human confirms (issue 16, docs/step-up-confirmation.md).
--
-- principals.step_up_confirmation: 'agent' (the default, CONTRACT.md: re-sending the request with
-- step_up_confirmed: true clears a STEP_UP) or 'principal' (a STEP_UP carries a step_up_id and is
-- cleared only after POST /api/v1/step-ups/{id}/confirm, with the Principal's credential or the
-- one-time code of the step_up.created event).
alter table principals add column if not exists step_up_confirmation text not null default 'agent'
  check (step_up_confirmation in ('agent', 'principal'));

-- The decision's step-up: on a STEP_UP under the 'principal' policy the step-up it opened (with
-- the hash of its one-time code and its expiry, only on the decision that opened it), on an
-- APPROVE the step-up whose confirmation it used. The actor sets them; the group commit writes
-- them with the row like every other column.
alter table authorizations add column if not exists step_up_id text;
alter table authorizations add column if not exists step_up_code_hash text;
alter table authorizations add column if not exists step_up_expires_at timestamptz;

-- One row per step-up opened under the 'principal' policy, by a trigger in the same transaction
-- as the decision's group commit (so a step-up exists exactly when its decision does). The
-- one-time code is stored only as code_hash: hex SHA-256 of '<step_up_id>:<code>'. Its states
-- move by conditional UPDATEs, so each move happens once whichever instance makes it:
--   PENDING -> CONFIRMED  POST /api/v1/step-ups/{id}/confirm (status = 'PENDING', not expired;
--                         with a code also code_hash and failed_attempts < 5)
--   -> USED               the APPROVE that consumed it (trigger below)
create table step_ups (
  id text primary key,
  authorization_id text not null,
  principal_id text not null,
  agent_id text not null,
  amount numeric not null,
  currency text not null,
  merchant_id text,
  merchant_name text,
  code_hash text not null,
  status text not null default 'PENDING' check (status in ('PENDING', 'CONFIRMED', 'USED')),
  expires_at timestamptz not null,
  failed_attempts integer not null default 0,
  confirmed_at timestamptz,
  confirmed_via text check (confirmed_via in ('credential', 'code')),
  confirmed_by_credential text,
  used_at timestamptz,
  used_by_authorization_id text,
  created_at timestamptz not null default now()
);
-- The actor's load: the agent's open step-ups.
create index step_ups_agent_idx on step_ups (agent_id, expires_at) where status <> 'USED';

create function step_ups_track() returns trigger language plpgsql as $$
begin
  if new.decision = 'STEP_UP' and new.step_up_code_hash is not null then
    insert into step_ups (id, authorization_id, principal_id, agent_id, amount, currency, merchant_id, merchant_name,
      code_hash, expires_at)
    values (new.step_up_id, new.id, new.principal_id, new.agent_id, new.amount, new.currency, new.merchant_id,
      new.merchant_name, new.step_up_code_hash, new.step_up_expires_at)
    on conflict (id) do nothing;
  elsif new.decision = 'APPROVE' then
    update step_ups set status = 'USED', used_at = now(), used_by_authorization_id = new.id
    where id = new.step_up_id and status <> 'USED';
  end if;
  return null;
end
$$;
create trigger authorizations_step_up after insert on authorizations
  for each row when (new.step_up_id is not null)
  execute function step_ups_track();
