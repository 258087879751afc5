-- Shadow thresholds (issue 17): a second set of a Principal's thresholds, evaluated on live
-- traffic next to the real decision without effect (PUT /api/v1/thresholds/shadow). Only the
-- thresholds that act on already-computed scores (src/engine/pipeline/threshold-eval.ts); the
-- shadow set is laid over the Principal's live overrides. Kept apart from `thresholds` so that
-- DELETE /api/v1/thresholds (reset of the live overrides) leaves it in place.
create table if not exists shadow_thresholds (
  principal_id text primary key,
  overrides jsonb not null default '{}',
  updated_at timestamptz not null default now()
);
-- The decision under the shadow thresholds, per authorization: {decision, gates_fired,
-- thresholds_version}; null when the Principal had no shadow set. GET /authorize/log/{id} shows
-- it next to the decision; GET /api/v1/thresholds/shadow/report summarises the differences.
alter table authorizations add column if not exists shadow jsonb;
