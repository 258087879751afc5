-- Portable mandates (issue 27, docs/ap2.md): AP2 open Payment Mandates (SD-JWT VCs) imported as
-- mandates, the issuer keys they are verified against, and the closed mandates presented with
-- an authorization, each consumed exactly once.

-- The JWKS a Client registers for one of its Principals: the keys that may sign the Principal's
-- open Payment Mandates. PUT replaces the set; a key left out is RETIRED (it verifies no new
-- import; mandates already imported stay), and a RETIRED kid may come back.
create table ap2_issuer_keys (
  principal_id text not null references principals (id),
  kid text not null,
  jwk jsonb not null,
  status text not null check (status in ('ACTIVE', 'RETIRED')),
  created_at timestamptz not null default now(),
  retired_at timestamptz,
  primary key (principal_id, kid)
);

-- One row per imported open Payment Mandate: the credential as received and its hash (the AP2
-- reference), kept with the mandate it became. A credential is imported once (unique hash).
create table ap2_mandates (
  mandate_id text primary key references mandates (id),
  principal_id text not null,
  agent_id text not null,
  credential_hash text not null unique,
  credential text not null,
  issuer_kid text not null,
  cnf_jwk jsonb not null,
  cnf_thumbprint text not null,
  reference text,
  imported_at timestamptz not null default now()
);
create index ap2_mandates_agent_idx on ap2_mandates (agent_id);

-- Closed Payment Mandates presented with POST /api/v1/authorize/ap2. The primary key (the closed
-- mandate's hash) and the unique (mandate, transaction_id) make a second presentation fail on
-- any instance, before or after a restart: the insert is the claim. PENDING while the decision
-- is made; CONSUMED with its APPROVE; a DECLINE or STEP_UP deletes the claim (nothing was paid).
create table ap2_presentations (
  closed_hash text primary key,
  mandate_id text not null references mandates (id),
  open_hash text not null,
  transaction_id text not null,
  principal_id text not null,
  agent_id text not null,
  status text not null check (status in ('PENDING', 'CONSUMED')),
  authorization_id text,
  amount numeric not null,
  currency text not null,
  payee_id text not null,
  presented_at timestamptz not null default now(),
  consumed_at timestamptz,
  unique (mandate_id, transaction_id)
);
