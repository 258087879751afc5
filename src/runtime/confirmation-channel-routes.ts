// The Principal's confirmation channel (docs/step-up-confirmation.md "The confirmation channel"):
// GET and PUT /api/v1/principals/:principal_id/confirmation-channel. Where the step-up notifier
// (src/runtime/step-up-notifier.ts) sends the person the link to the confirmation page and the
// one-time code: an e-mail address, or a notification endpoint (POSTed JSON signed with the
// Standard Webhooks headers under a whsec_ secret shown once), never both; with the settings
// against approval fatigue (an hourly cap, notify-and-proceed for small amounts). Only the
// Principal's own credential reads or sets it (assertPrincipalOwnCredential): the Client that
// asks for purchases cannot route their confirmations to itself.
import type { Services } from '../app/services.js';
import { recordSecurityEvent } from '../audit/security-log.js';
import type { Config } from '../config/config.js';
import { formatAmount, fromDb, parseAmount, toDb } from '../domain/money.js';
import { iso } from '../domain/timestamp.js';
import { ApiError } from '../errors/registry.js';
import { json, type RouteDef } from '../http/types.js';
import type { SecretBox } from '../secrets/box.js';
import { notifySecretAad } from '../secrets/service.js';
import type { Sql } from '../storage/db.js';
import { generateSigningSecret } from '../webhooks/signature.js';
import { checkWebhookUrl } from '../webhooks/url-policy.js';
import { bodyOf, ownPrincipal } from './context.js';
import { assertPrincipalOwnCredential } from './step-ups-routes.js';

/** One channel at a time, and an endpoint the webhook URL policy allows. */
function checkChannel(config: Config, email: string | null, notifyUrl: string | null): void {
  if (email !== null && notifyUrl !== null) {
    throw new ApiError('validation_error', 'The request failed validation.', {
      details: [{ field: 'notify_url', code: 'not_allowed', message: 'set either email or notify_url, not both' }],
    });
  }
  if (notifyUrl === null) return;
  const check = checkWebhookUrl(notifyUrl, config.webhookUrlPolicy, config.webhookAllowedPorts);
  if (!check.ok) {
    throw new ApiError('validation_error', 'The request failed validation.', {
      details: [{ field: 'notify_url', code: 'format', message: check.reason }],
    });
  }
}

interface ChannelRow {
  confirmation_email: string | null;
  confirmation_channel_updated_at: Date | null;
  confirmation_max_per_hour: number | null;
  notify_proceed_currency: string | null;
  notify_proceed_max_amount: string | null;
  notify_proceed_veto_seconds: number | null;
  confirmation_notify_url: string | null;
}

interface ChannelBody {
  email: string | null;
  notify_url?: string | null;
  max_confirmations_per_hour?: number | null;
  notify_and_proceed?: { currency: string; max_amount: string; veto_seconds: number } | null;
}

const CHANNEL_COLUMNS = (db: Sql) => db`confirmation_email, confirmation_channel_updated_at, confirmation_max_per_hour,
  notify_proceed_currency, notify_proceed_max_amount::text as notify_proceed_max_amount, notify_proceed_veto_seconds,
  confirmation_notify_url`;

function channelView(principalId: string, r: ChannelRow): Record<string, unknown> {
  return {
    principal_id: principalId,
    email: r.confirmation_email,
    notify_url: r.confirmation_notify_url,
    max_confirmations_per_hour: r.confirmation_max_per_hour,
    notify_and_proceed:
      r.notify_proceed_currency === null
        ? null
        : {
            currency: r.notify_proceed_currency,
            max_amount: formatAmount(fromDb(r.notify_proceed_max_amount) ?? 0n),
            veto_seconds: r.notify_proceed_veto_seconds,
          },
    updated_at: r.confirmation_channel_updated_at === null ? null : iso(r.confirmation_channel_updated_at),
  };
}

export function confirmationChannelRoutes(services: Services, secrets: SecretBox): RouteDef[] {
  const { config } = services;
  return [
    {
      method: 'GET',
      path: '/api/v1/principals/:principal_id/confirmation-channel',
      auth: 'principal',
      response: 'PrincipalConfirmationChannel',
      operationId: 'getConfirmationChannel',
      errors: ['forbidden'],
      summary: 'The e-mail address the step-up confirmation link and code go to',
      handler: async (ctx) => {
        const auth = ownPrincipal(ctx);
        const { db } = ctx;
        await assertPrincipalOwnCredential(db, auth);
        const [row] = await db<ChannelRow[]>`
          select ${CHANNEL_COLUMNS(db)} from principals where id = ${auth.principalId}`;
        if (row === undefined) throw new ApiError('principal_not_found');
        return json(200, channelView(auth.principalId, row));
      },
    },
    {
      method: 'PUT',
      path: '/api/v1/principals/:principal_id/confirmation-channel',
      auth: 'principal',
      body: 'PrincipalConfirmationChannelRequest',
      response: 'PrincipalConfirmationChannel',
      operationId: 'setConfirmationChannel',
      errors: ['forbidden', 'validation_error'],
      summary: "Set the e-mail address the step-up confirmation link and code go to (the Principal's own credential)",
      handler: async (ctx) => {
        const auth = ownPrincipal(ctx);
        const { db } = ctx;
        await assertPrincipalOwnCredential(db, auth);
        const body = bodyOf<ChannelBody>(ctx);
        const { email } = body;
        const notifyUrl = body.notify_url ?? null;
        checkChannel(config, email, notifyUrl);
        const cap = body.max_confirmations_per_hour ?? null;
        const npp = body.notify_and_proceed ?? null;
        const nppAmount = npp === null ? null : parseAmount(npp.max_amount);
        const row = await db.begin(async (tx) => {
          const [before] = await tx<ChannelRow[]>`
            select ${CHANNEL_COLUMNS(tx as unknown as Sql)} from principals where id = ${auth.principalId} for update`;
          if (before === undefined) throw new ApiError('principal_not_found');
          // A new endpoint gets a new signing secret, shown once in this answer.
          const newSecret =
            notifyUrl !== null && notifyUrl !== before.confirmation_notify_url ? generateSigningSecret() : null;
          const sealed =
            notifyUrl === null
              ? null
              : newSecret !== null
                ? secrets.seal(newSecret, notifySecretAad(auth.principalId))
                : undefined;
          const [after] = await tx<ChannelRow[]>`
            update principals set confirmation_email = ${email}, confirmation_channel_updated_at = now(),
              confirmation_notify_url = ${notifyUrl},
              ${sealed === undefined ? tx`` : tx`confirmation_notify_secret_sealed = ${sealed},`}
              confirmation_max_per_hour = ${cap}, notify_proceed_currency = ${npp?.currency ?? null},
              notify_proceed_max_amount = ${nppAmount === null ? null : toDb(nppAmount)},
              notify_proceed_veto_seconds = ${npp?.veto_seconds ?? null}
            where id = ${auth.principalId}
            returning ${CHANNEL_COLUMNS(tx as unknown as Sql)}`;
          // The security log keeps what changed, and whether an address is set, not the address.
          await recordSecurityEvent(tx, ctx, {
            action: 'confirmation_channel.updated',
            targetType: 'principal',
            targetId: auth.principalId,
            changes: {
              email_set: { from: before.confirmation_email !== null, to: email !== null },
              notify_url: { from: before.confirmation_notify_url, to: notifyUrl },
              notify_secret_rotated: newSecret !== null,
              max_confirmations_per_hour: { from: before.confirmation_max_per_hour, to: cap },
              notify_and_proceed: {
                from: channelView(auth.principalId, before).notify_and_proceed,
                to: channelView(auth.principalId, after as ChannelRow).notify_and_proceed,
              },
            },
          });
          return { after: after as ChannelRow, newSecret };
        });
        const view = channelView(auth.principalId, row.after);
        return json(200, row.newSecret === null ? view : { ...view, notify_secret: row.newSecret });
      },
    },
  ];
}
