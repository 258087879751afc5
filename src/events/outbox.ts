// The one writer of the transactional outbox (migrations/0080): an event becomes a tuple
// [event_id, event_type, client_id, principal_id, authorization_id, payload], payload being the
// envelope's JSON text (members in the order event_type, event_id, timestamp, data: exactly what
// is relayed and signed), and the tuples of one transaction become one outbox_batches row, written
// in the transaction that makes the change they announce. The relay (relay.ts) reads them back.
// The group commit writes its batches in its own statement (src/shard/committer.ts, with the
// audit rows it keeps), from tuples made here.
import type postgres from 'postgres';
import { type EventEnvelope, makeEnvelope } from './envelope.js';

export type OutboxTuple = readonly [string, string, string, string, string | null, string];

/** Who an event belongs to: its tenant, and the authorization it is about (null: none). */
export interface EventOwner {
  readonly clientId: string;
  readonly principalId: string;
  readonly authorizationId?: string | null;
}

/** The outbox tuple of an envelope. */
export function tupleOf(owner: EventOwner, envelope: EventEnvelope): OutboxTuple {
  return [
    envelope.event_id,
    envelope.event_type,
    owner.clientId,
    owner.principalId,
    owner.authorizationId ?? null,
    JSON.stringify(envelope),
  ];
}

/** A new event of `eventType` with `data`, as an outbox tuple. */
export function outboxEvent(owner: EventOwner, eventType: string, data: Record<string, unknown>): OutboxTuple {
  return tupleOf(owner, makeEnvelope(eventType, data));
}

/** Writes `events` as one outbox batch with `db` (the change's own transaction); none: nothing. */
export async function writeOutbox(
  // biome-ignore lint/complexity/noBannedTypes: postgres.js's own default type parameter
  db: postgres.ISql<{}>,
  events: readonly OutboxTuple[],
): Promise<void> {
  if (events.length === 0) return;
  await db`insert into outbox_batches (events, event_count) values (${JSON.stringify(events)}, ${events.length})`;
}
