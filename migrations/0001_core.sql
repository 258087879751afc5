-- Core domain tables shared by the onboarding plane, the runtime plane and the decision engine.
-- Live and sandbox are separate databases with this same schema.
-- Money columns are NUMERIC (exact); the service never passes money through a binary float.

create table clients (
  id text primary key,
  name text not null,
  created_at timestamptz not null default now()
);

create table programs (
  id text primary key,
  client_id text not null references clients (id),
  name text not null,
  created_at timestamptz not null default now()
);
create index programs_client_idx on programs (client_id);

create table principals (
  id text primary key,
  client_id text not null references clients (id),
  principal_kind text not null,
  client_customer_ref text,
  verification_status text not null,
  verification_mode text not null,
  verification_type text not null,
  risk_tier text not null default 'LOW',
  profile jsonb not null,
  verification jsonb not null,
  step_up jsonb,
  metadata jsonb,
  verification_session jsonb,
  created_at timestamptz not null default now(),
  unique (client_id, client_customer_ref)
);

create table principal_programs (
  principal_id text not null references principals (id),
  program_id text not null references programs (id),
  enrolled_at timestamptz not null default now(),
  primary key (principal_id, program_id)
);

-- API credentials of Clients (principal_id null) and of Principals. Keys are stored only as
-- SHA-256 hashes. Rotation keeps the id, moves the old hash to previous_key_hash and lets it
-- authenticate until previous_key_expires_at.
create table credentials (
  id text primary key,
  client_id text not null references clients (id),
  principal_id text references principals (id),
  environment text not null check (environment in ('live', 'sandbox')),
  key_hash bytea not null unique,
  previous_key_hash bytea,
  previous_key_expires_at timestamptz,
  scopes text not null default '',
  ip_allowlist text[] not null default '{}',
  expires_at timestamptz,
  status text not null default 'active' check (status in ('active', 'revoked')),
  revoked_at timestamptz,
  created_at timestamptz not null default now()
);
create index credentials_previous_key_idx on credentials (previous_key_hash) where previous_key_hash is not null;
create index credentials_client_idx on credentials (client_id) where principal_id is null;
create index credentials_principal_idx on credentials (principal_id) where principal_id is not null;

create table agents (
  id text primary key,
  principal_id text not null references principals (id),
  client_id text not null references clients (id),
  program_id text references programs (id),
  name text not null,
  did text not null unique,
  did_method text not null,
  status text not null default 'ACTIVE' check (status in ('ACTIVE', 'SUSPENDED', 'REVOKED')),
  status_reason text,
  trust_level text not null default 'REGISTERED' check (trust_level in ('REGISTERED', 'VERIFIED', 'TRUSTED')),
  kya_score numeric,
  capabilities text[] not null,
  external_agent_ref text,
  metadata jsonb,
  public_key_jwk jsonb,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index agents_principal_idx on agents (principal_id, created_at);

create table mandates (
  id text primary key,
  agent_id text not null references agents (id),
  principal_id text not null references principals (id),
  program_id text references programs (id),
  status text not null default 'ACTIVE' check (status in ('ACTIVE', 'EXPIRED', 'REVOKED')),
  rails text[] not null default '{card}',
  currency text not null,
  max_amount_per_transaction numeric not null,
  max_daily_amount numeric,
  max_monthly_amount numeric,
  allowed_mccs text[],
  blocked_mccs text[],
  allowed_countries text[],
  blocked_countries text[],
  allowed_chains text[],
  allowed_assets text[],
  allowed_counterparties text[],
  crypto jsonb,
  valid_from timestamptz not null default now(),
  valid_until timestamptz not null,
  mandate_hash text not null,
  created_at timestamptz not null default now()
);
create index mandates_agent_idx on mandates (agent_id, created_at);

-- Idempotency-Key of the onboarding creates, per Client (the database is per environment).
create table idempotency_keys (
  client_id text not null,
  key text not null,
  request_hash text not null,
  state text not null check (state in ('in_flight', 'done')),
  response_status integer,
  response_body jsonb,
  created_at timestamptz not null default now(),
  primary key (client_id, key)
);
create index idempotency_keys_created_idx on idempotency_keys (created_at);

-- The immutable audit log of authorization decisions.
create table authorizations (
  id text primary key,
  principal_id text not null,
  agent_id text not null,
  mandate_id text,
  amount numeric not null,
  currency text not null,
  mcc text,
  merchant_id text,
  merchant_name text,
  country text,
  decision text not null check (decision in ('APPROVE', 'DECLINE', 'STEP_UP')),
  reason_codes text[] not null,
  gates_fired text[] not null,
  kya_score numeric,
  trust_level text,
  trust_score numeric,
  risk_score numeric,
  session_id text,
  idempotency_key text,
  processing_time_ms double precision not null,
  response jsonb not null,
  created_at timestamptz not null default now()
);
create index authorizations_agent_idx on authorizations (agent_id, created_at desc, id desc);
create unique index authorizations_idempotency_idx on authorizations (principal_id, idempotency_key)
  where idempotency_key is not null;

create table thresholds (
  principal_id text primary key,
  overrides jsonb not null default '{}',
  updated_at timestamptz not null default now()
);
