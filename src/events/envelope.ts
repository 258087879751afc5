// The event envelope of SPEC.md "Events": {event_type, event_id, timestamp, data}.
import { newId } from '../domain/ids.js';

export interface EventEnvelope {
  readonly event_type: string;
  readonly event_id: string;
  readonly timestamp: string;
  readonly data: Record<string, unknown>;
}

export function makeEnvelope(eventType: string, data: Record<string, unknown>, nowMs = Date.now()): EventEnvelope {
  return { event_type: eventType, event_id: newId('evt'), timestamp: new Date(nowMs).toISOString(), data };
}

/** NATS subject of CONTRACT.md: mandate.<env>.<client_id>.<principal_id>.<event_type>. */
export function subjectFor(env: 'live' | 'sandbox', clientId: string, principalId: string, eventType: string): string {
  return `mandate.${env}.${clientId}.${principalId}.${eventType}`;
}
