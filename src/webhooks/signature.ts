// Webhook signatures (SPEC.md "Signature" and the Standard Webhooks headers).
// - X-Mandate-Signature: lowercase hex HMAC-SHA256 of the raw body, keyed with the whole
//   whsec_ secret string (UTF-8).
// - webhook-signature: `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`,
//   keyed with the base64-decoded part after `whsec_`, as Standard Webhooks libraries expect.
//   During a secret rotation's grace period (POST /api/v1/webhooks/{id}/rotate-secret) it
//   carries two space-separated entries, the new secret's first, then the previous secret's:
//   a receiver holding either verifies (test/webhooks/standard-webhooks.test.ts).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

export function generateSigningSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

export function mandateSignature(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

function standardKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
}

export function standardSignature(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', standardKey(secret)).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

export interface SignedHeaders {
  'content-type': string;
  'user-agent': string;
  'x-mandate-signature': string;
  'x-mandate-event-id': string;
  'x-mandate-event-type': string;
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * Every header of one delivery attempt (the timestamp is the attempt's, the id the event's).
 * `previousSecret`: the secret a rotation replaced, while its grace period lasts.
 */
export function signedHeaders(
  secret: string,
  eventId: string,
  eventType: string,
  body: string,
  nowMs = Date.now(),
  previousSecret: string | null = null,
): SignedHeaders {
  const ts = Math.floor(nowMs / 1000);
  const signature = standardSignature(secret, eventId, ts, body);
  return {
    'content-type': 'application/json',
    'user-agent': 'agent-spending-authorization-webhooks/1',
    'x-mandate-signature': mandateSignature(secret, body),
    'x-mandate-event-id': eventId,
    'x-mandate-event-type': eventType,
    'webhook-id': eventId,
    'webhook-timestamp': String(ts),
    'webhook-signature':
      previousSecret === null ? signature : `${signature} ${standardSignature(previousSecret, eventId, ts, body)}`,
  };
}

/** Constant-time check of an X-Mandate-Signature (what a receiver does). */
export function verifyMandateSignature(secret: string, body: string, signature: string): boolean {
  const expected = Buffer.from(mandateSignature(secret, body), 'utf8');
  const given = Buffer.from(signature, 'utf8');
  return expected.length === given.length && timingSafeEqual(expected, given);
}
