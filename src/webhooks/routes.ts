// The webhooks API of SPEC.md "Webhooks (Principal)": management with a Principal API key
// only, and the public event catalog. Deliveries themselves are the dispatcher's.
import { recordSecurityEvent, type SecurityAction } from '../audit/security-log.js';
import type { Config } from '../config/config.js';
import { newId } from '../domain/ids.js';
import { ApiError } from '../errors/registry.js';
import { eventCatalog, samplePayload, WILDCARD_DESCRIPTION } from '../events/catalog.js';
import type { EventsService } from '../events/service.js';
import { json, type RouteDef } from '../http/types.js';
import type { SecretBox } from '../secrets/box.js';
import { webhookSecretAad } from '../secrets/service.js';
import type { WebhookDeliveryRow } from '../storage/rows/webhook-deliveries.js';
import type { WebhookRow } from '../storage/rows/webhooks.js';
import { COLUMNS, type ListedWebhook, load } from './access.js';
import { webhookRecoveryRoutes } from './recovery-routes.js';
import { generateSigningSecret, signedHeaders } from './signature.js';
import { SECRET_SELECT, type SecretColumns, signingSecrets } from './signing-secrets.js';
import { checkWebhookUrl, DESTINATION_NOT_ALLOWED } from './url-policy.js';

/** The largest PostgreSQL bigint (webhooks.seq). */
const MAX_BIGINT = 2n ** 63n - 1n;

function view(r: ListedWebhook): Record<string, unknown> {
  return {
    id: r.id,
    url: r.url,
    event_types: r.event_types,
    description: r.description,
    active: r.active,
    consecutive_failures: r.consecutive_failures,
    last_delivery_at: r.last_delivery_at?.toISOString() ?? null,
    last_status_code: r.last_status_code,
    created_at: r.created_at.toISOString(),
  };
}

function checkedUrl(raw: string, config: Config): string {
  const check = checkWebhookUrl(raw, config.webhookUrlPolicy, config.webhookAllowedPorts);
  if (!check.ok) {
    const message = check.reason === DESTINATION_NOT_ALLOWED ? `url: ${check.reason}.` : `url ${check.reason}.`;
    throw new ApiError('invalid_webhook_url', message, {
      details: [{ field: 'url', code: 'not_allowed', message: check.reason }],
    });
  }
  return raw;
}

/** A PATCH's action in the security log: re-enabling and disabling are named as such. */
function webhookUpdateAction(wasActive: boolean, isActive: boolean): SecurityAction {
  if (!wasActive && isActive) return 'webhook.reenabled';
  if (wasActive && !isActive) return 'webhook.disabled';
  return 'webhook.updated';
}

export function webhookRoutes(config: Config, events: EventsService, secrets: SecretBox): RouteDef[] {
  return [...managementRoutes(config, events, secrets), ...webhookRecoveryRoutes(events, secrets)];
}

function managementRoutes(config: Config, events: EventsService, secrets: SecretBox): RouteDef[] {
  const base = '/api/v1/webhooks';
  return [
    {
      method: 'GET',
      path: `${base}/events`,
      auth: 'none',
      response: 'WebhookEventCatalog',
      operationId: 'listWebhookEventTypes',
      summary: 'The webhook event catalog with a sample payload per type',
      handler: () =>
        json(200, {
          event_types: eventCatalog().map((e) => ({
            type: e.type,
            description: e.description,
            sample_payload: e.sample_payload,
          })),
          wildcard: WILDCARD_DESCRIPTION,
        }),
    },
    {
      method: 'POST',
      path: base,
      auth: 'principal_key',
      body: 'WebhookCreateRequest',
      response: 'WebhookCreated',
      successStatus: 201,
      errors: ['invalid_webhook_url'],
      operationId: 'createWebhook',
      summary: 'Register a webhook (the signing secret is returned once)',
      handler: async (ctx) => {
        const { auth, db: sql } = ctx;
        const body = ctx.body as { url: string; event_types: string[]; description?: string };
        const url = checkedUrl(body.url, config);
        const secret = generateSigningSecret();
        const id = newId('wh');
        const row = await sql.begin(async (tx) => {
          // The signing secret is stored sealed (src/secrets/); the answer is the only clear copy.
          const [created] = await tx<ListedWebhook[]>`
            insert into webhooks (id, principal_id, client_id, url, event_types, description, secret_sealed)
            values (${id}, ${auth.principalId}, ${auth.clientId}, ${url}, ${body.event_types},
              ${body.description ?? null}, ${secrets.seal(secret, webhookSecretAad(id))})
            returning ${tx.unsafe(COLUMNS)}`;
          await recordSecurityEvent(tx, ctx, {
            action: 'webhook.created',
            targetType: 'webhook',
            targetId: id,
            changes: { url, event_types: body.event_types, description: body.description ?? null },
          });
          return created;
        });
        events.dispatcher.invalidate(auth.environment, auth.principalId);
        return json(201, { webhook: view(row as ListedWebhook), signing_secret: secret });
      },
    },
    {
      method: 'GET',
      path: base,
      auth: 'principal_key',
      query: 'WebhookListQuery',
      response: 'WebhookList',
      operationId: 'listWebhooks',
      summary: "List the Principal's webhooks, oldest first, with a cursor",
      handler: async (ctx) => {
        const { auth, db: sql } = ctx;
        const limit = ctx.query.limit === undefined ? 20 : Number(ctx.query.limit);
        const after = ctx.query.cursor ?? '0';
        // The schema admits 19 digits; seq is a bigint, and a larger cursor was a 500 from the cast.
        if (BigInt(after) > MAX_BIGINT) {
          throw new ApiError('validation_error', 'The request failed validation.', {
            details: [
              { field: 'cursor', code: 'invalid_cursor', message: 'is not a cursor returned by this endpoint' },
            ],
          });
        }
        const rows = await sql<ListedWebhook[]>`
          select ${sql.unsafe(COLUMNS)} from webhooks
          where principal_id = ${auth.principalId} and seq > ${after}
          order by seq limit ${limit + 1}`;
        const page = rows.slice(0, limit);
        const next = rows.length > limit ? (page[page.length - 1] as ListedWebhook).seq : null;
        return json(200, { items: page.map(view), next_cursor: next === null ? null : String(next) });
      },
    },
    {
      method: 'GET',
      path: `${base}/:webhook_id`,
      auth: 'principal_key',
      response: 'Webhook',
      operationId: 'getWebhook',
      summary: 'Get one webhook',
      handler: async (ctx) => {
        const { auth, db: sql } = ctx;
        return json(200, view(await load(sql, auth.principalId, ctx.params.webhook_id as string)));
      },
    },
    {
      method: 'PATCH',
      path: `${base}/:webhook_id`,
      auth: 'principal_key',
      body: 'WebhookUpdateRequest',
      response: 'Webhook',
      errors: ['no_fields_to_update', 'invalid_webhook_url'],
      operationId: 'updateWebhook',
      summary: 'Update a webhook; active: true re-enables it and resets the failure counter',
      handler: async (ctx) => {
        const { auth, db: sql } = ctx;
        const body = (ctx.body ?? {}) as {
          url?: string;
          event_types?: string[];
          description?: string | null;
          active?: boolean;
        };
        if (
          body.url === undefined &&
          body.event_types === undefined &&
          body.description === undefined &&
          body.active === undefined
        ) {
          throw new ApiError('no_fields_to_update', 'Provide at least one of url, event_types, description, active.');
        }
        const id = ctx.params.webhook_id as string;
        await load(sql, auth.principalId, id);
        const url = body.url === undefined ? null : checkedUrl(body.url, config);
        const row = await sql.begin(async (tx) => {
          const [before] = await tx<Pick<WebhookRow, 'active'>[]>`
            select active from webhooks where id = ${id} and principal_id = ${auth.principalId} for update`;
          const [updated] = await tx<ListedWebhook[]>`
          update webhooks set
            url = coalesce(${url}, url),
            event_types = coalesce(${body.event_types ?? null}::text[], event_types),
            description = ${body.description === undefined ? sql`description` : body.description},
            active = coalesce(${body.active ?? null}::boolean, active),
            consecutive_failures = case when ${body.active === true} then 0 else consecutive_failures end,
            disabled_at = case when ${body.active === true} then null else disabled_at end,
            updated_at = now()
          where id = ${id} and principal_id = ${auth.principalId}
          returning ${tx.unsafe(COLUMNS)}`;
          if (before !== undefined && updated !== undefined) {
            await recordSecurityEvent(tx, ctx, {
              action: webhookUpdateAction(before.active, updated.active),
              targetType: 'webhook',
              targetId: id,
              changes: { ...body, ...(url === null ? {} : { url }) },
            });
          }
          return updated;
        });
        events.dispatcher.invalidate(auth.environment, auth.principalId);
        if (row === undefined) throw new ApiError('webhook_not_found');
        return json(200, view(row));
      },
    },
    {
      method: 'DELETE',
      path: `${base}/:webhook_id`,
      auth: 'principal_key',
      successStatus: 204,
      operationId: 'deleteWebhook',
      summary: 'Delete a webhook (pending deliveries are dropped)',
      handler: async (ctx) => {
        const { auth, db: sql } = ctx;
        const rows = await sql.begin(async (tx) => {
          const removed = await tx<Pick<WebhookRow, 'id' | 'url'>[]>`
            delete from webhooks where id = ${ctx.params.webhook_id as string} and principal_id = ${auth.principalId}
            returning id, url`;
          for (const r of removed) {
            await recordSecurityEvent(tx, ctx, {
              action: 'webhook.deleted',
              targetType: 'webhook',
              targetId: r.id,
              changes: { url: r.url },
            });
          }
          return removed;
        });
        if (rows.length === 0) throw new ApiError('webhook_not_found');
        events.dispatcher.invalidate(auth.environment, auth.principalId);
        return { status: 204 };
      },
    },
    {
      method: 'POST',
      path: `${base}/:webhook_id/test`,
      auth: 'principal_key',
      query: 'WebhookTestQuery',
      response: 'WebhookTestResult',
      errors: ['webhook_inactive'],
      operationId: 'testWebhook',
      summary: 'Send a signed sample event (test: true) to an active webhook',
      // It waits for the receiver (WEBHOOK_TIMEOUT_MS) on top of its own work.
      deadlineMs: config.webhookTimeoutMs + config.requestDeadlineMs,
      handler: async (ctx) => {
        const { auth, db: sql } = ctx;
        const id = ctx.params.webhook_id as string;
        const hook = await load(sql, auth.principalId, id);
        if (!hook.active)
          throw new ApiError('webhook_inactive', 'The webhook is not active; PATCH active: true first.');
        const [secretRow] = await sql<SecretColumns[]>`
          select ${sql.unsafe(SECRET_SELECT)} from webhooks w where w.id = ${id}`;
        if (secretRow === undefined) throw new ApiError('webhook_not_found');
        const signing = signingSecrets(secrets, secretRow);
        const requested = ctx.query.event_type ?? 'gate.fired';
        const eventId = newId('evt');
        const envelope = {
          event_type: requested,
          event_id: eventId,
          timestamp: new Date().toISOString(),
          test: true,
          data: { ...samplePayload(requested), test: true },
        };
        const body = JSON.stringify(envelope);
        const headers = signedHeaders(signing.current, eventId, requested, body, Date.now(), signing.previous);
        const result = await events.client.post(hook.url, body, headers as unknown as Record<string, string>);
        return json(200, {
          status: result.ok ? 'delivered' : 'failed',
          event_type: requested,
          event_id: eventId,
          status_code: result.statusCode,
          message: result.ok
            ? `Test event delivered; the receiver answered ${result.statusCode}.`
            : `Test event not delivered: ${result.error}.`,
        });
      },
    },
    {
      method: 'GET',
      path: `${base}/:webhook_id/deliveries`,
      auth: 'principal_key',
      query: 'WebhookDeliveryListQuery',
      response: 'WebhookDeliveryList',
      operationId: 'listWebhookDeliveries',
      summary: "A webhook's recent deliveries, newest first, with their attempts",
      handler: async (ctx) => {
        const { auth, db: sql } = ctx;
        const id = ctx.params.webhook_id as string;
        await load(sql, auth.principalId, id);
        const limit = ctx.query.limit === undefined ? 20 : Number(ctx.query.limit);
        const status = ctx.query.status ?? null;
        const rows = await sql<
          Pick<
            WebhookDeliveryRow,
            | 'id'
            | 'event_id'
            | 'event_type'
            | 'status'
            | 'attempts'
            | 'next_attempt_at'
            | 'last_status_code'
            | 'last_error'
            | 'created_at'
          >[]
        >`
          select id, event_id, event_type, status, attempts, next_attempt_at, last_status_code, last_error, created_at
          from webhook_deliveries
          where webhook_id = ${id} ${status === null ? sql`` : sql`and status = ${status}`}
          order by id desc limit ${limit}`;
        const ids = rows.map((r) => r.id);
        const attempts =
          ids.length === 0
            ? []
            : await sql<
                {
                  delivery_id: string;
                  attempt: number;
                  succeeded: boolean;
                  status_code: number | null;
                  error: string | null;
                  duration_ms: number;
                  attempted_at: Date;
                }[]
              >`
                select delivery_id, attempt, succeeded, status_code, error, duration_ms, attempted_at
                from webhook_delivery_attempts where delivery_id in ${sql(ids)} order by id`;
        const byDelivery = new Map<string, Record<string, unknown>[]>();
        for (const a of attempts) {
          const list = byDelivery.get(String(a.delivery_id)) ?? [];
          list.push({
            attempt: a.attempt,
            succeeded: a.succeeded,
            status_code: a.status_code,
            error: a.error,
            duration_ms: a.duration_ms,
            attempted_at: a.attempted_at.toISOString(),
          });
          byDelivery.set(String(a.delivery_id), list);
        }
        return json(200, {
          items: rows.map((r) => ({
            event_id: r.event_id,
            event_type: r.event_type,
            status: r.status,
            attempts: r.attempts,
            next_attempt_at: r.status === 'pending' ? r.next_attempt_at.toISOString() : null,
            last_status_code: r.last_status_code,
            last_error: r.last_error,
            created_at: r.created_at.toISOString(),
            attempt_log: byDelivery.get(String(r.id)) ?? [],
          })),
        });
      },
    },
    {
      method: 'POST',
      path: `${base}/:webhook_id/deliveries/:event_id/redeliver`,
      auth: 'principal_key',
      response: 'WebhookRedeliverResult',
      successStatus: 202,
      errors: ['webhook_inactive'],
      operationId: 'redeliverWebhookEvent',
      summary: 'Deliver an event again (e.g. one that ran out of retries), with a fresh retry budget',
      handler: async (ctx) => {
        const { auth, db: sql } = ctx;
        const id = ctx.params.webhook_id as string;
        const eventId = ctx.params.event_id as string;
        const hook = await load(sql, auth.principalId, id);
        if (!hook.active)
          throw new ApiError('webhook_inactive', 'The webhook is not active; PATCH active: true first.');
        const outcome = await events.dispatcher.redeliver(auth.environment, id, eventId);
        if (outcome === 'none') throw new ApiError('not_found', 'No delivery of that event to this webhook.');
        if (outcome === 'pending') {
          throw new ApiError('conflict', 'That delivery is still pending; it will be retried on schedule.');
        }
        return json(202, { status: 'queued', webhook_id: id, event_id: eventId });
      },
    },
  ];
}
