-- Building an agent's actor read the agent's WHOLE audit history (its all-time decision counts,
-- for the KYA score and trust promotion): ~1 s for an agent with a million decisions, past the
-- load deadline, so such an agent could no longer be decided after a restart or an eviction.
-- A rollup summarises an agent's audit rows created before `upto`; a load then reads the rollup
-- and only the rows from `upto` on. Rollups are written in the background by the shard worker
-- (src/engine/pipeline/rollup.ts), never on a request's path, with `upto` at least
-- ROLLUP_MARGIN_MS in the past, long after any decision of that age was committed or abandoned.
--
-- counts: all-time decisions before upto. mandates: per mandate, the APPROVED amount and count
-- in the month (month_*) and in the UTC day (day_*) that contain upto, before upto, as
-- {"<mandate_id>": {"month_sum": "<decimal>", "month_n": n, "day_sum": "<decimal>", "day_n": n}}.
create table agent_audit_rollups (
  agent_id text primary key,
  upto timestamptz not null,
  approved bigint not null check (approved >= 0),
  declined bigint not null check (declined >= 0),
  step_ups bigint not null check (step_ups >= 0),
  mandates jsonb not null default '{}',
  updated_at timestamptz not null default now()
);
