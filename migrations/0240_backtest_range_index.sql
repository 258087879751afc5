-- Backtests of thresholds (issue 17, POST /api/v1/thresholds/backtest) read a Principal's own
-- decisions of a time range oldest first, in pages of (created_at, id): this index serves
-- that range and the cursor. The inputs of the replay are stored with each decision in the
-- existing explanation column (explanation.replay, src/engine/pipeline/threshold-eval.ts).
create index if not exists authorizations_principal_time_idx on authorizations (principal_id, created_at, id);
