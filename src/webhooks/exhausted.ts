// webhook.delivery_exhausted: when a delivery stops for good without success (its retries ran
// out, or the webhook was disabled after consecutive failures), an event of its own tells the
// Principal, on NATS and on every webhook subscribed to it (the failing one included: a
// receiver that was down may be back). It is written to the outbox in the transaction that
// marks the delivery failed, so it is relayed exactly as the engine's events are, whichever
// instance made the last attempt. A delivery of webhook.delivery_exhausted that itself runs
// out creates nothing (no loop).

import type postgres from 'postgres';
import { DELIVERY_EXHAUSTED_EVENT_TYPE } from '../events/catalog.js';
import { makeEnvelope } from '../events/envelope.js';
import { tupleOf, writeOutbox } from '../events/outbox.js';

export interface ExhaustedDelivery {
  readonly webhookId: string;
  readonly url: string;
  readonly principalId: string;
  readonly clientId: string;
  readonly eventId: string;
  readonly eventType: string;
  readonly attempts: number;
  readonly lastStatusCode: number | null;
  readonly lastError: string | null;
  /** retries_exhausted, or webhook_disabled (consecutive failures reached WEBHOOK_DISABLE_AFTER). */
  readonly reason: 'retries_exhausted' | 'webhook_disabled';
}

/** Whether a failed delivery of `eventType` announces itself (never for the announcement itself). */
export function announcesExhaustion(eventType: string): boolean {
  return eventType !== DELIVERY_EXHAUSTED_EVENT_TYPE;
}

/** Writes the event to the outbox inside `tx` (the transaction that records the failure). */
export async function recordExhausted(
  // biome-ignore lint/complexity/noBannedTypes: postgres.js's own default type parameter
  tx: postgres.TransactionSql<{}>,
  d: ExhaustedDelivery,
): Promise<void> {
  const envelope = makeEnvelope(DELIVERY_EXHAUSTED_EVENT_TYPE, {
    webhook_id: d.webhookId,
    url: d.url,
    event_id: d.eventId,
    event_type: d.eventType,
    attempts: d.attempts,
    last_status_code: d.lastStatusCode,
    last_error: d.lastError,
    reason: d.reason,
  });
  await writeOutbox(tx, [tupleOf({ clientId: d.clientId, principalId: d.principalId }, envelope)]);
}
