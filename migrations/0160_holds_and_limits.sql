-- Holds, budget credits and richer limits (issue 16, docs/holds.md).
--
-- A POST /authorize with capture_method 'manual' that is APPROVEd is a hold: the audit row (still
-- immutable) records capture_method and hold_expires_at, and a trigger opens its row in `holds`
-- in the same transaction as the group commit, so a hold exists exactly when its decision does.
-- Capture, release, expiry and refund change the `holds` row with conditional UPDATEs (one
-- winner) and write what they give back to the budget in `budget_credits`, keyed by the time of
-- the original authorization: the agent's actor subtracts the credits of each window from the
-- APPROVED sums it reads at load (src/engine/pipeline/load.ts), so a credit only ever counts in
-- the windows the original spend counted in.
alter table authorizations add column if not exists capture_method text;
alter table authorizations add column if not exists hold_expires_at timestamptz;

create table holds (
  authorization_id text primary key,
  principal_id text not null,
  agent_id text not null,
  mandate_id text,
  currency text not null,
  capture_method text not null check (capture_method in ('automatic', 'manual')),
  amount numeric not null,
  captured_amount numeric not null default 0,
  released_amount numeric not null default 0,
  refunded_amount numeric not null default 0,
  status text not null check (status in ('HELD', 'CAPTURED', 'RELEASED', 'EXPIRED')),
  authorized_at timestamptz not null,
  expires_at timestamptz,
  settled_at timestamptz,
  updated_at timestamptz not null default now()
);
-- The expiry sweep's claim: due holds, oldest first.
create index holds_due_idx on holds (expires_at) where status = 'HELD';
create index holds_agent_idx on holds (agent_id, authorized_at) where status = 'HELD';

create function holds_open() returns trigger language plpgsql as $$
begin
  insert into holds (authorization_id, principal_id, agent_id, mandate_id, currency, capture_method, amount,
    status, authorized_at, expires_at)
  values (new.id, new.principal_id, new.agent_id, new.mandate_id, new.currency, 'manual', new.amount,
    'HELD', new.created_at, new.hold_expires_at)
  on conflict (authorization_id) do nothing;
  return null;
end
$$;
create trigger authorizations_hold_open after insert on authorizations
  for each row when (new.capture_method = 'manual' and new.decision = 'APPROVE')
  execute function holds_open();

-- What came back to the budget: the rest of a partial capture, a release, an expiry, a refund.
-- count_back = 1 when the whole authorization was undone (release, expiry): it no longer counts
-- as a transaction for the count limits either.
create table budget_credits (
  id text primary key,
  authorization_id text not null,
  principal_id text not null,
  agent_id text not null,
  mandate_id text,
  kind text not null check (kind in ('capture_remainder', 'release', 'expiry', 'refund')),
  amount numeric not null check (amount >= 0),
  count_back integer not null default 0,
  authorized_at timestamptz not null,
  idempotency_key text,
  created_at timestamptz not null default now()
);
create index budget_credits_agent_idx on budget_credits (agent_id, authorized_at);
create index budget_credits_authorization_idx on budget_credits (authorization_id);

-- Richer limits: calendar windows in the Principal's time zone, the mandate's whole life, counts.
alter table mandates add column if not exists max_weekly_amount numeric;
alter table mandates add column if not exists max_yearly_amount numeric;
alter table mandates add column if not exists max_total_amount numeric;
alter table mandates add column if not exists max_daily_count integer;
alter table mandates add column if not exists max_monthly_count integer;
-- Seconds a manual hold lives before it expires (null: 7 days).
alter table mandates add column if not exists hold_expiry_seconds integer;
-- Share of a cap at which budget.threshold_reached is emitted (null: 0.8).
alter table mandates add column if not exists budget_alert_share numeric;

alter table principals add column if not exists timezone text not null default 'UTC';
