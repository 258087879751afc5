-- Reproducible decisions (issue 13): every authorization stores what decided it — the features
-- the gates read, each gate's score and the version of the thresholds in force — so an owner
-- can explain a decision afterwards (GET /api/v1/authorize/log/{id}, field `explanation`).
-- Null for rows written before this migration and for the safe decisions of an outage.
alter table authorizations add column if not exists explanation jsonb;
