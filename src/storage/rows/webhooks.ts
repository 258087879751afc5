// The `webhooks` table (migrations/0040_webhooks.sql, 0100_security_log_and_sealed_secrets.sql,
// 0200_receipts_and_webhook_secret_rotation.sql): a Principal's webhook registrations. A row as
// postgres.js returns it: BIGINT as decimal text, timestamptz as Date.

export interface WebhookRow {
  /** The listing order (bigserial). */
  seq: string;
  id: string;
  principal_id: string;
  client_id: string;
  url: string;
  /** As registered (aliases such as kya.zone.red kept as given). */
  event_types: string[];
  description: string | null;
  /** whsec_<base64 of 32 random bytes> in clear; migration 0100: null once sealed into secret_sealed. */
  secret: string | null;
  active: boolean;
  consecutive_failures: number;
  last_delivery_at: Date | null;
  last_status_code: number | null;
  disabled_at: Date | null;
  created_at: Date;
  updated_at: Date;
  /** Migration 0100: the secret sealed at rest (src/secrets/), AAD webhooks.secret:<id>. */
  secret_sealed: string | null;
  /** Migration 0200: the secret before a rotation, sealed, signing beside the new one until previous_secret_expires_at. */
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
}
