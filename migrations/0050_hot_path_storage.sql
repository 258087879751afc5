-- Hot-path storage (measured with npm run bench):
-- * outbox.payload becomes json: the envelope text is stored as written by the shard worker and
--   relayed byte for byte (payload::text), so neither PostgreSQL nor the relay converts it to
--   and from jsonb on every event.
-- * authorizations.response is kept only for requests that carry an idempotency_key (the only
--   reader is the idempotent replay); other decisions no longer store a second copy of their
--   audit fields.
alter table outbox alter column payload type json using payload::json;
alter table authorizations alter column response drop not null;
