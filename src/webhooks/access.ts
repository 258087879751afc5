// What the webhook routes share: the row as listed, and the calling Principal's access to it.
import { ApiError } from '../errors/registry.js';
import type { Sql } from '../storage/db.js';
import type { WebhookRow } from '../storage/rows/webhooks.js';

/** A webhook as COLUMNS lists it. */
export type ListedWebhook = Pick<
  WebhookRow,
  | 'seq'
  | 'id'
  | 'url'
  | 'event_types'
  | 'description'
  | 'active'
  | 'consecutive_failures'
  | 'last_delivery_at'
  | 'last_status_code'
  | 'created_at'
>;

export const COLUMNS =
  'seq, id, url, event_types, description, active, consecutive_failures, last_delivery_at, last_status_code, created_at';

export async function load(sql: Sql, principalId: string, webhookId: string): Promise<ListedWebhook> {
  const rows = await sql<ListedWebhook[]>`
    select ${sql.unsafe(COLUMNS)} from webhooks where id = ${webhookId} and principal_id = ${principalId}`;
  const row = rows[0];
  if (row === undefined) throw new ApiError('webhook_not_found');
  return row;
}
