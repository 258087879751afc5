-- A batch's events are stored as text the database never parses (measured with the bench:
-- PostgreSQL parsed each batch's ~17 kB of json twice, once when the group commit wrote it and
-- once when the relay took it apart, about a third of its CPU per decision). `events` is the
-- JSON text of an array of tuples, in order:
--   [event_id, event_type, client_id, principal_id, authorization_id, payload]
-- where payload is the webhook envelope {event_type, event_id, timestamp, data} as a JSON
-- string, exactly the bytes relayed and signed. The relay parses it in JavaScript, where the
-- payload comes out as that string with no work; the view outbox_events still shows one row per
-- event for operators and tests.
drop view outbox_events;
alter table outbox_batches drop constraint outbox_batches_events_check;
alter table outbox_batches add column tuples text;
update outbox_batches b
set tuples = (
  select json_agg(json_build_array(e->>'event_id', e->>'event_type', e->>'client_id', e->>'principal_id',
      e->>'authorization_id', (e->'payload')::text) order by ord)::text
  from json_array_elements(b.events) with ordinality as x(e, ord));
alter table outbox_batches drop column events;
alter table outbox_batches rename column tuples to events;
alter table outbox_batches alter column events set not null;
do $$
begin
  alter table outbox_batches alter column events set compression lz4;
exception when feature_not_supported or invalid_parameter_value then
  raise notice 'lz4 is not available: outbox_batches.events keeps the default compression';
end
$$;

create view outbox_events as
  select b.seq, e.position, e.t->>0 as event_id, e.t->>1 as event_type, e.t->>2 as client_id,
    e.t->>3 as principal_id, (e.t->>5)::json as payload, e.t->>4 as authorization_id, b.created_at,
    b.published_at
  from outbox_batches b
  cross join lateral json_array_elements(b.events::json) with ordinality as e(t, position);
