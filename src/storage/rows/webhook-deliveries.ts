// The `webhook_deliveries` table (migrations/0040_webhooks.sql, 0130_claims.sql): one row per
// (webhook, event), inserted before the event is acknowledged on the bus. A row as postgres.js
// returns it: BIGINT as decimal text, timestamptz as Date.

export type WebhookDeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface WebhookDeliveryRow {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  /** The exact envelope bytes published on the bus; every attempt posts the same body. */
  body: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  next_attempt_at: Date;
  last_status_code: number | null;
  last_error: string | null;
  last_attempt_at: Date | null;
  created_at: Date;
  /** Migration 0130: the instance attempting it, until lease_until (null: claimable at once). */
  claimed_by: string | null;
  lease_until: Date | null;
}
