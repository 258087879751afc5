-- Whether an instance's cluster transport (NATS request/reply, src/cluster/transport.ts) was
-- connected at its last lease beat (src/cluster/leases.ts). Shards are preferred to the
-- instances the others can reach: one cut off NATS while the others keep it hands its shards
-- over instead of holding shards no other instance can forward to. When none is reachable (NATS
-- down for all) every live instance counts, as before. Null (a row written by an instance of an
-- earlier version) counts as reachable.
alter table instances add column if not exists reachable boolean;
