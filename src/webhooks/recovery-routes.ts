// Webhook secret rotation and redelivery over a time range:
// - POST /api/v1/webhooks/{id}/rotate-secret: a new signing secret; during the grace period
//   (default 24 h) deliveries carry signatures with both (src/webhooks/signing-secrets.ts).
// - POST /api/v1/webhooks/{id}/redeliver: one event ({event_id}), or the failed deliveries of
//   events recorded in [from, to) ({from, to, limit}), bounded per call.
import { recordSecurityEvent } from '../audit/security-log.js';
import { ApiError, type ErrorDetail } from '../errors/registry.js';
import type { EventsService } from '../events/service.js';
import { json, type RouteDef } from '../http/types.js';
import { rangeErrors } from '../runtime/backtest-routes.js';
import type { SecretBox } from '../secrets/box.js';
import { webhookPreviousSecretAad, webhookSecret, webhookSecretAad } from '../secrets/service.js';
import type { WebhookRow } from '../storage/rows/webhooks.js';
import { load } from './access.js';
import { generateSigningSecret } from './signature.js';

/** Default grace period of a secret rotation: 24 hours. */
export const DEFAULT_SECRET_GRACE_SECONDS = 86_400;
/** Deliveries one range redelivery queues at most. */
export const MAX_RANGE_REDELIVERIES = 1000;

interface RedeliverBody {
  event_id?: string;
  from?: string;
  to?: string;
  limit?: number;
}

function invalid(details: ErrorDetail[]): ApiError {
  return new ApiError('validation_error', 'The request failed validation.', { details });
}

export function webhookRecoveryRoutes(events: EventsService, secrets: SecretBox): RouteDef[] {
  const base = '/api/v1/webhooks';
  return [
    {
      method: 'POST',
      path: `${base}/:webhook_id/rotate-secret`,
      auth: 'principal_key',
      body: 'WebhookRotateSecretRequest',
      response: 'WebhookSecretRotated',
      operationId: 'rotateWebhookSecret',
      summary: 'Rotate the signing secret; deliveries carry both signatures during the grace period',
      handler: async (ctx) => {
        const { auth, db: sql } = ctx;
        const id = ctx.params.webhook_id as string;
        const grace =
          (ctx.body as { grace_period_seconds?: number }).grace_period_seconds ?? DEFAULT_SECRET_GRACE_SECONDS;
        const secret = generateSigningSecret();
        const expiresAt = await sql.begin(async (tx) => {
          const [row] = await tx<Pick<WebhookRow, 'id' | 'secret' | 'secret_sealed'>[]>`
            select id, secret, secret_sealed from webhooks
            where id = ${id} and principal_id = ${auth.principalId} for update`;
          if (row === undefined) throw new ApiError('webhook_not_found');
          // The secret being replaced keeps signing until the grace period ends (sealed with its
          // own additional data, so it opens only as this webhook's previous secret).
          const previous = grace === 0 ? null : secrets.seal(webhookSecret(secrets, row), webhookPreviousSecretAad(id));
          const [updated] = await tx<Pick<WebhookRow, 'previous_secret_expires_at'>[]>`
            update webhooks set secret_sealed = ${secrets.seal(secret, webhookSecretAad(id))}, secret = null,
              previous_secret_sealed = ${previous},
              previous_secret_expires_at = ${previous === null ? null : tx`now() + ${`${grace} seconds`}::interval`},
              updated_at = now()
            where id = ${id} returning previous_secret_expires_at`;
          const until = updated?.previous_secret_expires_at ?? null;
          await recordSecurityEvent(tx, ctx, {
            action: 'webhook.secret_rotated',
            targetType: 'webhook',
            targetId: id,
            changes: { grace_period_seconds: grace, previous_secret_expires_at: until?.toISOString() ?? null },
          });
          return until;
        });
        return json(200, {
          webhook_id: id,
          signing_secret: secret,
          previous_secret_expires_at: expiresAt?.toISOString() ?? null,
        });
      },
    },
    {
      method: 'POST',
      path: `${base}/:webhook_id/redeliver`,
      auth: 'principal_key',
      body: 'WebhookRedeliverRequest',
      response: 'WebhookRangeRedeliverResult',
      successStatus: 202,
      operationId: 'redeliverWebhookEvents',
      summary: 'Deliver again one event, or the failed deliveries of a time range (bounded per call)',
      fieldErrors: (_ctx, raw) => redeliverFieldErrors(raw as RedeliverBody),
      handler: async (ctx) => {
        const { auth, db: sql } = ctx;
        const id = ctx.params.webhook_id as string;
        const body = ctx.body as RedeliverBody;
        const problems = redeliverFieldErrors(body);
        if (problems.length > 0) throw invalid(problems);
        const hook = await load(sql, auth.principalId, id);
        if (!hook.active)
          throw new ApiError('webhook_inactive', 'The webhook is not active; PATCH active: true first.');
        if (body.event_id !== undefined) {
          const outcome = await events.dispatcher.redeliver(auth.environment, id, body.event_id);
          if (outcome === 'none') throw new ApiError('not_found', 'No delivery of that event to this webhook.');
          if (outcome === 'pending') {
            throw new ApiError('conflict', 'That delivery is still pending; it will be retried on schedule.');
          }
          return json(202, {
            status: 'queued',
            webhook_id: id,
            event_id: body.event_id,
            queued: 1,
            more: false,
            next_from: null,
          });
        }
        const limit = body.limit ?? MAX_RANGE_REDELIVERIES;
        const r = await events.dispatcher.redeliverRange(
          auth.environment,
          id,
          new Date(body.from as string),
          new Date(body.to as string),
          limit,
        );
        return json(202, { status: 'queued', webhook_id: id, queued: r.queued, more: r.more, next_from: r.nextFrom });
      },
    },
  ];
}

/** One event, or a range: never both, never neither; a range's from before its to. */
function redeliverFieldErrors(b: RedeliverBody): ErrorDetail[] {
  if (typeof b !== 'object' || b === null) return [];
  const range = b.from !== undefined || b.to !== undefined || b.limit !== undefined;
  if (b.event_id !== undefined && range) {
    return [{ field: 'event_id', code: 'not_allowed', message: 'give either event_id or from and to, not both' }];
  }
  if (b.event_id !== undefined) return [];
  const out: ErrorDetail[] = [];
  if (b.from === undefined) out.push({ field: 'from', code: 'required', message: 'is required (or give event_id)' });
  if (b.to === undefined) out.push({ field: 'to', code: 'required', message: 'is required (or give event_id)' });
  // Compares strings only (the schema refuses anything else): turning a hostile value, an array
  // nested thousands deep, into text overflowed the stack (a 500).
  if (out.length === 0) out.push(...rangeErrors(b));
  return out;
}
