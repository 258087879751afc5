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

/**
 * NATS subject of CONTRACT.md: mandate.<env>.<client_id>.<principal_id>.<event_type> (the
 * prefix is configurable only so that test servers can share one NATS without sharing a stream).
 */
export function subjectFor(
  env: 'live' | 'sandbox',
  clientId: string,
  principalId: string,
  eventType: string,
  prefix = 'mandate',
): string {
  return `${prefix}.${env}.${clientId}.${principalId}.${eventType}`;
}

export interface SubjectParts {
  readonly env: 'live' | 'sandbox';
  readonly clientId: string;
  readonly principalId: string;
  readonly eventType: string;
}

/** Inverse of subjectFor (event types keep their dots); null for a foreign subject. */
export function parseSubject(subject: string, prefix = 'mandate'): SubjectParts | null {
  if (!subject.startsWith(`${prefix}.`)) return null;
  const parts = subject.slice(prefix.length + 1).split('.');
  if (parts.length < 4) return null;
  const env = parts[0];
  if (env !== 'live' && env !== 'sandbox') return null;
  return {
    env,
    clientId: parts[1] as string,
    principalId: parts[2] as string,
    eventType: parts.slice(3).join('.'),
  };
}
