-- Background work is claimed when several instances share one database (docs/background-claims.md).
--
-- The outbox relay: one instance at a time relays a database's outbox, the holder of the
-- lease row named after the work ('outbox'). The holder renews it well before it expires; the
-- others try to take it only once it expired. One relay keeps the outbox's seq order (and with
-- it every agent's event order) exactly as a single instance did.
create table work_leases (
  name text primary key,
  holder text not null,
  lease_until timestamptz not null,
  -- Bumped on every take-over (not on renewals): who held it how many times, for operators.
  epoch bigint not null default 1,
  acquired_at timestamptz not null default now()
);

-- Webhook deliveries: the instance that attempts a pending delivery holds it (claimed_by) until
-- lease_until. The holder keeps its claim through the retry wait (lease_until = the next
-- attempt's time plus the lease), so only it attempts the next retry slot; a dead holder's
-- claims are taken by any other instance's sweep once lease_until has passed. Rows without a
-- holder (released on a clean stop, or written before this migration) are claimable at once.
alter table webhook_deliveries add column claimed_by text;
alter table webhook_deliveries add column lease_until timestamptz;

-- Which bus each instance runs on ('nats' or 'memory'): an instance on the in-process bus never
-- shares a database with another live instance, and one on NATS never with one on the
-- in-process bus (src/cluster/instances.ts). Null: an instance started before this migration.
-- host and pid let a restarted instance tell its own dead predecessor from a live neighbour.
alter table instances add column bus text check (bus in ('nats', 'memory'));
alter table instances add column host text;
alter table instances add column pid integer;
