// What the webhook routes share: the row as listed, and the calling Principal's access to it.
import { ApiError } from '../errors/registry.js';
import type { Sql } from '../storage/db.js';

export interface WebhookRow {
  seq: string;
  id: string;
  url: string;
  event_types: string[];
  description: string | null;
  active: boolean;
  consecutive_failures: number;
  last_delivery_at: Date | null;
  last_status_code: number | null;
  created_at: Date;
}

export const COLUMNS =
  'seq, id, url, event_types, description, active, consecutive_failures, last_delivery_at, last_status_code, created_at';

export async function load(sql: Sql, principalId: string, webhookId: string): Promise<WebhookRow> {
  const rows = await sql<WebhookRow[]>`
    select ${sql.unsafe(COLUMNS)} from webhooks where id = ${webhookId} and principal_id = ${principalId}`;
  const row = rows[0];
  if (row === undefined) throw new ApiError('webhook_not_found');
  return row;
}
