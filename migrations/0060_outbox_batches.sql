-- The outbox becomes one row per group commit instead of one row per event (measured with
-- npm run bench): a batch of decisions wrote, then the relay updated, then the cleanup deleted,
-- one row and three index entries per event; now it is one row per batch. `events` holds the
-- batch's events in order, each {event_id, event_type, client_id, principal_id, payload,
-- authorization_id}, payload being the webhook envelope {event_type, event_id, timestamp, data}
-- exactly as relayed (json keeps the text as written). The relay marks a batch published only
-- once every one of its events was accepted by the bus.
create table outbox_batches (
  seq bigserial primary key,
  events json not null check (json_typeof(events) = 'array'),
  event_count integer not null check (event_count > 0),
  created_at timestamptz not null default now(),
  published_at timestamptz
);
create index outbox_batches_unpublished_idx on outbox_batches (seq) where published_at is null;
-- A batch's events (~16 kB for 15 decisions) are compressed by TOAST; lz4 costs a fraction of
-- the default pglz's CPU. Builds without lz4 (embedded PGlite) keep the default.
do $$
begin
  alter table outbox_batches alter column events set compression lz4;
exception when feature_not_supported or invalid_parameter_value then
  raise notice 'lz4 is not available: outbox_batches.events keeps the default compression';
end
$$;

-- One row per event, in relay order, for readers (tests, operators) that want events.
create view outbox_events as
  select b.seq, e.position, e.event_id, e.event_type, e.client_id, e.principal_id, e.payload,
    e.authorization_id, b.created_at, b.published_at
  from outbox_batches b
  cross join lateral rows from (
    json_to_recordset(b.events) as (event_id text, event_type text, client_id text, principal_id text,
      payload json, authorization_id text)
  ) with ordinality as e(event_id, event_type, client_id, principal_id, payload, authorization_id, position);

-- Events not yet relayed move over in their order, one batch; published ones are history.
insert into outbox_batches (events, event_count, created_at)
select json_agg(json_build_object('event_id', event_id, 'event_type', event_type, 'client_id', client_id,
    'principal_id', principal_id, 'payload', payload, 'authorization_id', null) order by seq),
  count(*), min(created_at)
from outbox where published_at is null
having count(*) > 0;
drop table outbox;
