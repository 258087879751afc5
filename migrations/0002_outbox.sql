-- Transactional outbox: events are inserted in the same transaction as the audit rows of the
-- decisions that produced them, then relayed to NATS JetStream (or the in-process bus) and
-- marked published. The environment is the database's own.
create table outbox (
  seq bigserial primary key,
  event_id text not null unique,
  event_type text not null,
  client_id text not null,
  principal_id text not null,
  -- The webhook envelope {event_type, event_id, timestamp, data}.
  payload jsonb not null,
  created_at timestamptz not null default now(),
  published_at timestamptz
);
create index outbox_unpublished_idx on outbox (seq) where published_at is null;
