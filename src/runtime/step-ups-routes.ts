// A step-up the human confirms (docs/step-up-confirmation.md):
// - GET and PUT /api/v1/principals/:principal_id/step-up-policy: who clears a STEP_UP of the
//   Principal's agents, `agent` (the default of CONTRACT.md: re-sending with step_up_confirmed)
//   or `principal` (a STEP_UP carries a step_up_id that must be confirmed first). A change
//   reaches every actor of the Principal before the answer (invalidatePrincipal).
// - POST /api/v1/step-ups/:step_up_id/confirm: with the Principal's own credential, or with the
//   one-time code of step_up.created. One conditional UPDATE of the step_ups row (PENDING, not
//   expired, and for a code: its hash, fewer than MAX_CODE_ATTEMPTS wrong codes) decides, so a
//   step-up is confirmed once whichever instance is asked; the agent's owning actor, on whatever
//   instance, reloads before the answer (invalidateAgent) and then knows it is confirmed.
// - GET /api/v1/step-ups/:step_up_id: where a step-up stands (an agent may poll it).
import type { Services } from '../app/services.js';
import { recordSecurityEvent } from '../audit/security-log.js';
import { assertOwnAgent } from '../auth/agent-keys.js';
import type { PrincipalAuth } from '../auth/types.js';
import { fromDb, toJsonNumber } from '../domain/money.js';
import { hashStepUpCode } from '../domain/step-up-code.js';
import { iso } from '../domain/timestamp.js';
import { ApiError } from '../errors/registry.js';
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
> & { expired: boolean };

const COLUMNS = (db: Sql) => db`id, authorization_id, agent_id, amount::text as amount, currency, merchant_id,
  merchant_name, status, (status <> 'USED' and expires_at <= now()) as expired, expires_at, failed_attempts,
  confirmed_at, confirmed_via, used_at, used_by_authorization_id`;

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
        and failed_attempts < ${MAX_CODE_ATTEMPTS} and code_hash <> ${hash}
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
      summary: 'Set who clears a STEP_UP: agent (re-send with step_up_confirmed) or principal (confirm first)',
      handler: async (ctx) => {
        const auth = ownPrincipal(ctx);
        const { db } = ctx;
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
      summary: 'Confirm a step-up: with the Principal credential, or with the one-time code of step_up.created',
      handler: (ctx) => confirm(services, ctx),
    },
  ];
}

async function confirm(services: Services, ctx: RequestContext<'principal'>) {
  const { auth, db } = ctx;
  const id = idParam(ctx, 'step_up_id', 'step_up_not_found');
  const { code } = (ctx.body ?? {}) as { code?: string };
  if (code === undefined && !ownCredential(auth)) throw new ApiError('step_up_confirmation_forbidden');
  const hash = code === undefined ? null : hashStepUpCode(id, code);
  const [row] = await db<StepUpView[]>`
    update step_ups set status = 'CONFIRMED', confirmed_at = now(),
      confirmed_via = ${hash === null ? 'credential' : 'code'}, confirmed_by_credential = ${auth.credentialId}
    where id = ${id} and principal_id = ${auth.principalId} and status = 'PENDING' and expires_at > now()
      ${hash === null ? db`` : db`and failed_attempts < ${MAX_CODE_ATTEMPTS} and code_hash = ${hash}`}
    returning ${COLUMNS(db)}`;
  if (row === undefined) throw await refusal(db, auth.principalId, id, hash);
  // Before answering: the actor holding the agent, on whatever instance, reloads and sees it.
  await invalidateAgent(services, auth.environment, row.agent_id);
  return json(200, view(row));
}
