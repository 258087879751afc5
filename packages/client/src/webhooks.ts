// Webhook deliveries: each carries the Standard Webhooks headers webhook-id (the event_id),
// webhook-timestamp (the attempt's Unix seconds) and webhook-signature, `v1,<base64
// HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<raw body>">` keyed with the base64-decoded
// part of the whsec_ secret after the prefix; during a secret rotation it carries two
// space-separated entries (the new secret's, then the previous one's). The signature covers the
// timestamp, so a delivery older than the tolerance is refused as a replay. Node only (node:crypto).
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The envelope of every event (docs/events.md). */
export interface WebhookEvent<D = Record<string, unknown>> {
  readonly event_type: string;
  /** `evt_…`: the same on every retry of a delivery; deduplicate on it. */
  readonly event_id: string;
  readonly timestamp: string;
  readonly data: D;
  /** Present (true) on the samples POST /api/v1/webhooks/{id}/test sends. */
  readonly test?: boolean;
}

/** Headers as Node's `req.headers` gives them, or a fetch `Headers`. */
export type DeliveryHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

export interface VerifyWebhookOptions {
  /** The webhook's signing secret (`whsec_…`), as POST /api/v1/webhooks answered it. */
  readonly secret: string;
  readonly headers: DeliveryHeaders;
  /** The raw body as received, before any parsing. */
  readonly body: string | Uint8Array;
  /** Largest age (or lead) of webhook-timestamp in seconds. Default 300. */
  readonly toleranceSeconds?: number;
  /** The receiver's clock in milliseconds (default Date.now()). */
  readonly nowMs?: number;
}

/** The delivery does not verify: a signature that does not match, a missing header, or a stale timestamp. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

const SECRET_PREFIX = 'whsec_';

/** The delivery's event once its signature and timestamp verify; throws WebhookVerificationError otherwise. */
export function verifyWebhook<D = Record<string, unknown>>(options: VerifyWebhookOptions): WebhookEvent<D> {
  const id = header(options.headers, 'webhook-id');
  const timestamp = header(options.headers, 'webhook-timestamp');
  const signatures = header(options.headers, 'webhook-signature');
  if (id === undefined || timestamp === undefined || signatures === undefined) {
    throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature');
  }
  if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError('webhook-timestamp is not Unix seconds');
  const tolerance = options.toleranceSeconds ?? 300;
  if (Math.abs((options.nowMs ?? Date.now()) / 1000 - Number(timestamp)) > tolerance) {
    throw new WebhookVerificationError('webhook-timestamp is outside the tolerance');
  }
  const body = typeof options.body === 'string' ? Buffer.from(options.body, 'utf8') : options.body;
  const key = Buffer.from(
    options.secret.startsWith(SECRET_PREFIX) ? options.secret.slice(SECRET_PREFIX.length) : options.secret,
    'base64',
  );
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest();
  const matches = signatures.split(' ').some((entry) => {
    const comma = entry.indexOf(',');
    if (comma < 0 || entry.slice(0, comma) !== 'v1') return false;
    const given = Buffer.from(entry.slice(comma + 1), 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw new WebhookVerificationError('no webhook-signature entry matches the body');
  let event: WebhookEvent<D>;
  try {
    event = JSON.parse(Buffer.from(body).toString('utf8')) as WebhookEvent<D>;
  } catch (err) {
    throw new WebhookVerificationError('the body is not JSON', { cause: err });
  }
  if (event?.event_id !== id) throw new WebhookVerificationError('the body is not the event webhook-id names');
  return event;
}

function header(headers: DeliveryHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  const value = record[name] ?? Object.entries(record).find(([k]) => k.toLowerCase() === name)?.[1];
  return Array.isArray(value) ? value.join(' ') : (value as string | undefined);
}

/**
 * The older X-Mandate-Signature check (SPEC.md "Signature"): lowercase hex HMAC-SHA256 of the
 * raw body keyed with the whole whsec_ secret. It does not cover a timestamp: prefer
 * `verifyWebhook`, which refuses replays.
 */
export function verifyMandateSignature(options: Omit<VerifyWebhookOptions, 'toleranceSeconds' | 'nowMs'>): boolean {
  const given = Buffer.from(header(options.headers, 'x-mandate-signature') ?? '', 'utf8');
  const body = typeof options.body === 'string' ? Buffer.from(options.body, 'utf8') : options.body;
  const expected = Buffer.from(createHmac('sha256', options.secret).update(body).digest('hex'), 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
