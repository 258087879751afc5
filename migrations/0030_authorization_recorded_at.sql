-- When the decision was durably recorded: now() of the transaction that wrote the audit row,
-- which is also the created_at of the outbox rows written with it (the same commit). The
-- decision time stays in created_at.
alter table authorizations add column recorded_at timestamptz not null default now();
