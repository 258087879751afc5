-- Webhooks of SPEC.md "Webhooks (Principal)" and their durable delivery state. A delivery row
-- exists once per (webhook, event): the dispatcher inserts it before acknowledging the event
-- on the bus, so a restart never loses a pending retry.
create table webhooks (
  seq bigserial not null unique,
  id text primary key,
  principal_id text not null references principals (id),
  client_id text not null,
  url text not null,
  -- As registered (aliases such as kya.zone.red kept as given).
  event_types text[] not null,
  description text,
  -- whsec_<base64 of 32 random bytes>; needed in clear to sign deliveries.
  secret text not null,
  active boolean not null default true,
  consecutive_failures integer not null default 0,
  last_delivery_at timestamptz,
  last_status_code integer,
  disabled_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index webhooks_principal_idx on webhooks (principal_id, seq);

create table webhook_deliveries (
  id bigserial primary key,
  webhook_id text not null references webhooks (id) on delete cascade,
  event_id text not null,
  event_type text not null,
  -- The exact envelope bytes published on the bus; every attempt posts the same body.
  body text not null,
  status text not null default 'pending' check (status in ('pending', 'succeeded', 'failed')),
  attempts integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  last_status_code integer,
  last_error text,
  last_attempt_at timestamptz,
  created_at timestamptz not null default now(),
  unique (webhook_id, event_id)
);
create index webhook_deliveries_pending_idx on webhook_deliveries (next_attempt_at) where status = 'pending';

create table webhook_delivery_attempts (
  id bigserial primary key,
  delivery_id bigint not null references webhook_deliveries (id) on delete cascade,
  webhook_id text not null,
  event_id text not null,
  attempt integer not null,
  succeeded boolean not null,
  status_code integer,
  error text,
  duration_ms integer not null,
  attempted_at timestamptz not null default now()
);
create index webhook_delivery_attempts_webhook_idx on webhook_delivery_attempts (webhook_id, id desc);
