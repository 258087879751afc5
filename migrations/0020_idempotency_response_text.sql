-- Idempotent replays answer the original body byte for byte: jsonb would reorder its keys, so
-- the serialised response is kept as text (response_body stays unused by the onboarding plane).
alter table idempotency_keys add column response_json text;
