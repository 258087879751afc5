// A step-up the human confirms (docs/step-up-confirmation.md):
// - GET and PUT /api/v1/principals/:principal_id/step-up-policy: who clears a STEP_UP of the
//   Principal's agents, `agent` (the default of CONTRACT.md: re-sending with step_up_confirmed)
//   or `principal` (a STEP_UP carries a step_up_id that must be confirmed first). A change
//   reaches every actor of the Principal before the answer (invalidatePrincipal).
// - GET and PUT /api/v1/principals/:principal_id/confirmation-channel: the e-mail address the
//   step-up notifier sends the confirmation link and one-time code to (src/runtime/
//   step-up-notifier.ts). Set only with the Principal's own credential: a Client credential acting
//   for its only Principal (CLIENT_TENANCY), an agent key or a scoped key other than principals
//   cannot set it, so the party that asked for the purchase cannot route its confirmation to itself.
// - POST /api/v1/step-ups/:step_up_id/confirm: with the Principal's own credential, or with the
//   one-time code the person got by e-mail. One conditional UPDATE of the step_ups row (PENDING, not
//   expired, and for a code: its hash, fewer than MAX_CODE_ATTEMPTS wrong codes) decides, so a
//   step-up is confirmed once whichever instance is asked; the agent's owning actor, on whatever
//   instance, reloads before the answer (invalidateAgent) and then knows it is confirmed.
// - GET /api/v1/step-ups/:step_up_id: where a step-up stands (an agent may poll it).
import type { Services } from '../app/services.js';
import { recordSecurityEvent } from '../audit/security-log.js';
import { assertOwnAgent } from '../auth/agent-keys.js';
import type { PrincipalAuth } from '../auth/types.js';
import { formatAmount, fromDb, toJsonNumber } from '../domain/money.js';
import { hashStepUpCode } from '../domain/step-up-code.js';
import { iso } from '../domain/timestamp.js';
import { ApiError } from '../errors/registry.js';
import { outboxEvent, writeOutbox } from '../events/outbox.js';
import { json, type RequestContext, type RouteDef } from '../http/types.js';
import type { Sql } from '../storage/db.js';
import type { PrincipalRow } from '../storage/rows/principals.js';
import type { StepUpRow } from '../storage/rows/step-ups.js';
import { bodyOf, idParam, ownPrincipal } from './context.js';
import { invalidateAgent, invalidatePrincipal } from './engine-handle.js';

/** Wrong codes after which a step-up can be confirmed only with the Principal's credential. */
export const MAX_CODE_ATTEMPTS = 5;

/** A step_ups row as COLUMNS reads it, with whether it expired unused (by the database's clock). */
type StepUpView = Pick<
  StepUpRow,
  | 'id'
  | 'authorization_id'
  | 'agent_id'
  | 'amount'
  | 'currency'
  | 'merchant_id'
  | 'merchant_name'
  | 'status'
  | 'expires_at'
  | 'failed_attempts'
  | 'confirmed_at'
  | 'confirmed_via'
  | 'used_at'
  | 'used_by_authorization_id'
  | 'declined_at'
  | 'notify_status'
  | 'principal_id'
  | 'proceeds_at'
> & { expired: boolean; client_id: string };

const COLUMNS = (db: Sql) => db`id, authorization_id, agent_id, amount::text as amount, currency, merchant_id,
  merchant_name, status, (status in ('PENDING', 'CONFIRMED') and expires_at <= now()) as expired, expires_at,
  failed_attempts, confirmed_at, confirmed_via, used_at, used_by_authorization_id, declined_at, notify_status,
  principal_id, proceeds_at, (select client_id from principals p where p.id = step_ups.principal_id) as client_id`;

/** What the events of a step-up's answer say of it (never its code or link). */
export type StepUpEventRow = Pick<
  StepUpRow,
  'id' | 'agent_id' | 'authorization_id' | 'amount' | 'currency' | 'merchant_id' | 'merchant_name' | 'expires_at'
>;

/** The data of step_up.confirmed (with how) or step_up.declined (via null). */
export function stepUpEventData(
  r: StepUpEventRow,
  via: 'link' | 'code' | 'credential' | 'veto_window' | null,
): Record<string, unknown> {
  return {
    step_up_id: r.id,
    agent_id: r.agent_id,
    authorization_id: r.authorization_id,
    amount: formatAmount(fromDb(r.amount) ?? 0n),
    currency: r.currency,
    merchant_id: r.merchant_id,
    merchant_name: r.merchant_name,
    ...(via === null ? {} : { confirmed_via: via }),
    expires_at: iso(r.expires_at),
  };
}

function view(r: StepUpView): Record<string, unknown> {
  return {
    step_up_id: r.id,
    status: r.expired ? 'EXPIRED' : r.status,
    authorization_id: r.authorization_id,
    agent_id: r.agent_id,
    amount: toJsonNumber(fromDb(r.amount) ?? 0n),
    currency: r.currency,
    merchant_id: r.merchant_id,
    merchant_name: r.merchant_name,
    expires_at: iso(r.expires_at),
    confirmed_at: r.confirmed_at === null ? null : iso(r.confirmed_at),
    confirmed_via: r.confirmed_via,
    used_at: r.used_at === null ? null : iso(r.used_at),
    used_by_authorization_id: r.used_by_authorization_id,
    declined_at: r.declined_at === null ? null : iso(r.declined_at),
    notification: r.notify_status,
    proceeds_at: r.proceeds_at === null || r.status !== 'PENDING' ? null : iso(r.proceeds_at),
  };
}

async function loadOwned(db: Sql, principalId: string, id: string): Promise<StepUpView> {
  const [row] = await db<StepUpView[]>`
    select ${COLUMNS(db)} from step_ups where id = ${id} and principal_id = ${principalId}`;
  if (row === undefined) throw new ApiError('step_up_not_found');
  return row;
}

/** Why a confirmation changed nothing; a wrong code is counted first (its own statement, kept). */
async function refusal(db: Sql, principalId: string, id: string, hash: string | null): Promise<ApiError> {
  if (hash !== null) {
    const [wrong] = await db<Pick<StepUpRow, 'failed_attempts'>[]>`
      update step_ups set failed_attempts = failed_attempts + 1
      where id = ${id} and principal_id = ${principalId} and status = 'PENDING' and expires_at > now()
        and failed_attempts < ${MAX_CODE_ATTEMPTS} and code_hash is distinct from ${hash}
      returning failed_attempts`;
    if (wrong !== undefined) {
      const left = MAX_CODE_ATTEMPTS - wrong.failed_attempts;
      return new ApiError(
        'invalid_step_up_code',
        left > 0
          ? `The one-time code does not match this step-up (${left} attempt${left === 1 ? '' : 's'} left).`
          : 'The one-time code does not match this step-up, and no attempt is left: confirm it with the Principal credential.',
      );
    }
  }
  const row = await loadOwned(db, principalId, id);
  if (row.status !== 'PENDING') {
    return new ApiError('step_up_not_pending', `The step-up is ${row.status}: a confirmation is single-use.`);
  }
  if (row.expired) return new ApiError('step_up_expired');
  return new ApiError('step_up_code_locked');
}

/** Without a code, only a credential that is the Principal's own: full access or the step_ups scope. */
function ownCredential(auth: PrincipalAuth): boolean {
  return auth.scopes.length === 0 || auth.scopes.includes('step_ups');
}

/**
 * The confirmation channel is the Principal's own: a credential of the Principal itself (not a
 * Client credential acting for its only Principal under CLIENT_TENANCY, nor a token minted from
 * one), with full access or the principals scope (the edge refuses agent keys on this route).
 */
export async function assertPrincipalOwnCredential(db: Sql, auth: PrincipalAuth): Promise<void> {
  if (auth.agentId !== undefined) throw new ApiError('forbidden');
  if (auth.scopes.length > 0 && !auth.scopes.includes('principals')) throw new ApiError('forbidden');
  if (!(await isPrincipalsOwn(db, auth))) {
    throw new ApiError(
      'forbidden',
      "The confirmation channel and the step-up policy are set only with the Principal's own credential, not a Client credential or a key the Client issued.",
    );
  }
}

/**
 * The credential is the Principal's own: a Principal credential of this Principal, and not one
 * its Client issued (POST /principals/{id}/sandbox-key, recorded as such in the security log
 * in the same transaction) nor a Client credential acting for its only Principal.
 */
async function isPrincipalsOwn(db: Sql, auth: PrincipalAuth): Promise<boolean> {
  const [cred] = await db<{ principal_id: string | null; by_client: boolean }[]>`
    select principal_id, exists (
      select 1 from security_log
      where action = 'credential.created' and target_id = ${auth.credentialId} and changes->>'via' = 'sandbox-key'
    ) as by_client
    from credentials where id = ${auth.credentialId}`;
  return cred !== undefined && cred.principal_id === auth.principalId && !cred.by_client;
}

export function stepUpsRoutes(services: Services): RouteDef[] {
  return [
    {
      method: 'GET',
      path: '/api/v1/principals/:principal_id/step-up-policy',
      auth: 'principal',
      response: 'PrincipalStepUpPolicy',
      operationId: 'getStepUpPolicy',
      summary: 'Who clears a STEP_UP of the Principal agents: the agent (default) or the Principal',
      handler: async (ctx) => {
        const auth = ownPrincipal(ctx);
        const { db } = ctx;
        const [row] = await db<Pick<PrincipalRow, 'step_up_confirmation'>[]>`
          select step_up_confirmation from principals where id = ${auth.principalId}`;
        if (row === undefined) throw new ApiError('principal_not_found');
        return json(200, { principal_id: auth.principalId, confirmation: row.step_up_confirmation });
      },
    },
    {
      method: 'PUT',
      path: '/api/v1/principals/:principal_id/step-up-policy',
      auth: 'principal',
      body: 'PrincipalStepUpPolicy',
      response: 'PrincipalStepUpPolicy',
      operationId: 'setStepUpPolicy',
      errors: ['forbidden'],
      summary: 'Set who clears a STEP_UP: agent (re-send with step_up_confirmed) or principal (confirm first)',
      handler: async (ctx) => {
        const auth = ownPrincipal(ctx);
        const { db } = ctx;
        // Who may switch the person's confirmation off is who may route it: the Principal itself.
        await assertPrincipalOwnCredential(db, auth);
        const { confirmation } = bodyOf<{ confirmation: 'agent' | 'principal' }>(ctx);
        // The change and its security record commit together; the previous value is locked.
        await db.begin(async (tx) => {
          const [before] = await tx<Pick<PrincipalRow, 'step_up_confirmation'>[]>`
            select step_up_confirmation from principals where id = ${auth.principalId} for update`;
          if (before === undefined) throw new ApiError('principal_not_found');
          await tx`update principals set step_up_confirmation = ${confirmation} where id = ${auth.principalId}`;
          await recordSecurityEvent(tx, ctx, {
            action: 'step_up_policy.updated',
            targetType: 'principal',
            targetId: auth.principalId,
            changes: { from: before.step_up_confirmation, to: confirmation },
          });
        });
        // Before answering: every actor of the Principal decides under the new policy.
        await invalidatePrincipal(services, auth.environment, auth.principalId);
        return json(200, { principal_id: auth.principalId, confirmation });
      },
    },
    {
      method: 'GET',
      path: '/api/v1/step-ups/:step_up_id',
      auth: 'principal',
      response: 'StepUp',
      operationId: 'getStepUp',
      agentKey: 'handler',
      summary: 'Where a step-up stands (PENDING, CONFIRMED, USED, EXPIRED)',
      handler: async (ctx) => {
        const { auth, db } = ctx;
        const row = await loadOwned(db, auth.principalId, idParam(ctx, 'step_up_id', 'step_up_not_found'));
        assertOwnAgent(auth, row.agent_id);
        return json(200, view(row));
      },
    },
    {
      method: 'POST',
      path: '/api/v1/step-ups/:step_up_id/confirm',
      auth: 'principal',
      body: 'StepUpConfirmRequest',
      bodyOptional: true,
      response: 'StepUp',
      successStatus: 200,
      errors: [
        'step_up_confirmation_forbidden',
        'invalid_step_up_code',
        'step_up_not_pending',
        'step_up_expired',
        'step_up_code_locked',
      ],
      operationId: 'confirmStepUp',
      summary: 'Confirm a step-up: with the Principal credential, or with the one-time code e-mailed to the Principal',
      handler: (ctx) => confirm(services, ctx),
    },
  ];
}

async function confirm(services: Services, ctx: RequestContext<'principal'>) {
  const { auth, db } = ctx;
  const id = idParam(ctx, 'step_up_id', 'step_up_not_found');
  const { code } = (ctx.body ?? {}) as { code?: string };
  // Without a code only the Principal's own credential confirms: never the Client's (acting for
  // its only Principal) nor a key the Client issued the Principal.
  if (code === undefined && !(ownCredential(auth) && (await isPrincipalsOwn(db, auth)))) {
    throw new ApiError('step_up_confirmation_forbidden');
  }
  const hash = code === undefined ? null : hashStepUpCode(id, code);
  const via = hash === null ? 'credential' : 'code';
  // The confirmation and its event (step_up.confirmed) commit together.
  const row = await db.begin(async (tx) => {
    const [r] = await tx<StepUpView[]>`
      update step_ups set status = 'CONFIRMED', confirmed_at = now(),
        confirmed_via = ${via}, confirmed_by_credential = ${auth.credentialId}
      where id = ${id} and principal_id = ${auth.principalId} and status = 'PENDING' and expires_at > now()
        ${hash === null ? tx`` : tx`and failed_attempts < ${MAX_CODE_ATTEMPTS} and code_hash = ${hash}`}
      returning ${COLUMNS(tx as unknown as Sql)}`;
    if (r === undefined) return undefined;
    await writeOutbox(tx, [
      outboxEvent(
        { clientId: r.client_id, principalId: r.principal_id, authorizationId: r.authorization_id },
        'step_up.confirmed',
        stepUpEventData(r, via),
      ),
    ]);
    return r;
  });
  if (row === undefined) throw await refusal(db, auth.principalId, id, hash);
  services.events.nudge(auth.environment);
  // Before answering: the actor holding the agent, on whatever instance, reloads and sees it.
  await invalidateAgent(services, auth.environment, row.agent_id);
  return json(200, view(row));
}
