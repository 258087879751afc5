// What the background rounds of a database still have to do: unrelayed outbox batches
// (src/events/relay.ts), pending webhook deliveries (src/webhooks/dispatcher.ts) and holds that
// will fall due (src/runtime/hold-expiry.ts). The embedded sandbox is checked as the service
// stops: with none of these it opens lazily at the next start (src/storage/embedded.ts), since
// nothing would be waiting in it; with any, it opens at start so the rounds pick them up.
// A round added to the service that works on rows of the sandbox must be added here.
import type { Sql } from '../storage/db.js';

export async function hasPendingWork(sql: Sql): Promise<boolean> {
  const [row] = await sql<{ pending: boolean }[]>`
    select exists (select 1 from outbox_batches where published_at is null)
        or exists (select 1 from webhook_deliveries where status = 'pending')
        or exists (select 1 from holds where status = 'HELD' and expires_at is not null) as pending`;
  return row?.pending !== false;
}
