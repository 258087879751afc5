-- Signed decision receipts and webhook secret rotation (issue 17).

-- Ed25519 keys that sign decision receipts (src/receipts/), published next to the token keys at
-- /.well-known/jwks.json. Kept apart from signing_keys: a receipt key never verifies an access
-- token and a token key never signs a receipt. The service reads and writes this table in the
-- live database only. A key signs from `signs_from` (a rotation publishes the next key before
-- any instance signs with it) until a newer key's `signs_from`; it is published until
-- `published_until` (null: while it signs, and for the retention set when it was rotated out).
create table receipt_keys (
  kid text primary key,
  private_key_sealed text not null,
  public_jwk jsonb not null,
  signs_from timestamptz not null default now(),
  published_until timestamptz,
  created_at timestamptz not null default now()
);
create index receipt_keys_signs_from_idx on receipt_keys (signs_from desc);

-- POST /api/v1/webhooks/{id}/rotate-secret: the previous secret, sealed like the current one
-- (AAD `webhooks.previous_secret:<id>`), keeps signing deliveries beside the new one until
-- previous_secret_expires_at.
alter table webhooks add column previous_secret_sealed text;
alter table webhooks add column previous_secret_expires_at timestamptz;

-- POST /api/v1/webhooks/{id}/redeliver {from, to}: a webhook's failed deliveries by the time
-- their event was recorded (failed rows are few; the index holds only them).
create index webhook_deliveries_failed_idx on webhook_deliveries (webhook_id, created_at, id) where status = 'failed';
