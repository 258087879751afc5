// POST /api/v1/authorizations/:authorization_id/capture, /release and /refund (docs/holds.md).
// Only the Principal that owns the authorization may act (anyone else: 404). Each operation
// takes an Idempotency-Key (the onboarding machinery, keys scoped to the Principal): the state
// change, its budget credit, its event and the remembered answer commit together. After the
// commit the agent's actor is told of the credit (creditAgent: counted in memory, or a reload
// before its next decision), so the budget given back counts at once.
import type { Services } from '../app/services.js';
import { assertOwnAgent, boundAgent } from '../auth/agent-keys.js';
import { currencyExponent } from '../domain/currency.js';
import { readAmount, SCALE, type Units } from '../domain/money.js';
import { ApiError } from '../errors/registry.js';
import { amountText } from '../http/json-source.js';
import { json, type Reply, type RequestContext, type RouteDef } from '../http/types.js';
import { withIdempotency } from '../onboarding/idempotency.js';
import type { AuthorizationRow } from '../storage/rows/authorizations.js';
import { idParam } from './context.js';
import { type Credited, captureHold, refundAuthorization, releaseHold } from './holds-store.js';

const AMOUNT_PATH = ['amount'];

/** The optional `amount` of the body, exact, within the authorization's currency's minor units. */
async function amountOf(ctx: RequestContext, currencyOf: () => Promise<string | null>): Promise<Units | null> {
  const body = (ctx.body ?? {}) as { amount?: unknown };
  if (body.amount === undefined) return null;
  const text = amountText(ctx.rawBody, body.amount, AMOUNT_PATH);
  const currency = (await currencyOf()) ?? 'USD';
  const units =
    text === null
      ? 'must be a decimal amount within range'
      : readAmount(text, currencyExponent(currency) ?? SCALE, currency);
  const problem = typeof units === 'string' ? units : units <= 0n ? 'must be greater than 0' : null;
  if (problem !== null) {
    throw new ApiError('validation_error', undefined, {
      details: [{ field: 'amount', code: 'invalid_amount', message: problem }],
    });
  }
  return units as Units;
}

export function holdsRoutes(services: Services): RouteDef[] {
  /** Runs one operation under the request's Idempotency-Key, then tells the agent's actor of its credit. */
  async function operate(
    ctx: RequestContext<'principal'>,
    work: (
      tx: Parameters<Parameters<typeof withIdempotency>[1]>[0],
      principalId: string,
      id: string,
    ) => Promise<Credited & Record<string, unknown>>,
  ): Promise<Reply> {
    const { auth } = ctx;
    const id = idParam(ctx, 'authorization_id', 'authorization_not_found');
    if (boundAgent(auth) !== null) {
      // An agent key settles its own agent's holds only (an unknown id: 404 below, as for anyone).
      const [owner] = await ctx.db<Pick<AuthorizationRow, 'agent_id'>[]>`
        select agent_id from authorizations where id = ${id} and principal_id = ${auth.principalId}`;
      assertOwnAgent(auth, owner?.agent_id);
    }
    let done: Credited | null = null;
    const reply = await withIdempotency(ctx, async (tx) => {
      const { agentId, credit, ...body } = await work(tx, auth.principalId, id);
      done = { agentId, credit };
      return json(200, body);
    });
    // A replayed answer (the work did not run) has nothing new to tell.
    const changed = done as Credited | null;
    if (changed !== null) {
      services.events.nudge(auth.environment);
      // A whole capture gives nothing back: the actor's counts stay right as they are.
      if (changed.credit !== null) {
        try {
          await services.engine.creditAgent(auth.environment, changed.agentId, changed.credit);
        } catch (err) {
          // Committed: the actor keeps counting the old (higher) usage until its next reload.
          services.log.warn({ err, agent_id: changed.agentId }, 'hold change committed; agent not told');
        }
      }
    }
    return reply;
  }

  const currencyOf = (ctx: RequestContext<'principal'>) => async (): Promise<string | null> => {
    const { auth, db } = ctx;
    const rows = await db<Pick<AuthorizationRow, 'currency'>[]>`
      select currency from authorizations where id = ${ctx.params.authorization_id ?? ''}
        and principal_id = ${auth.principalId}`;
    return rows[0]?.currency ?? null;
  };

  return [
    {
      method: 'POST',
      path: '/api/v1/authorizations/:authorization_id/capture',
      auth: 'principal',
      body: 'HoldCaptureRequest',
      bodyOptional: true,
      idempotencyKey: true,
      response: 'HoldCaptureResponse',
      successStatus: 200,
      operationId: 'captureAuthorization',
      agentKey: 'handler',
      summary: 'Capture a hold (all of it, or `amount` of it and release the rest)',
      handler: async (ctx) => {
        const amount = await amountOf(ctx, currencyOf(ctx));
        return operate(ctx, (tx, principalId, id) => captureHold(tx, principalId, id, amount));
      },
    },
    {
      method: 'POST',
      path: '/api/v1/authorizations/:authorization_id/release',
      auth: 'principal',
      body: 'HoldReleaseRequest',
      bodyOptional: true,
      idempotencyKey: true,
      response: 'HoldReleaseResponse',
      successStatus: 200,
      operationId: 'releaseAuthorization',
      agentKey: 'handler',
      summary: 'Release a hold: its whole amount goes back to the budget',
      handler: (ctx) => operate(ctx, (tx, principalId, id) => releaseHold(tx, principalId, id)),
    },
    {
      method: 'POST',
      path: '/api/v1/authorizations/:authorization_id/refund',
      auth: 'principal',
      body: 'HoldRefundRequest',
      bodyOptional: true,
      idempotencyKey: true,
      response: 'HoldRefundResponse',
      successStatus: 200,
      operationId: 'refundAuthorization',
      summary: 'Refund a captured authorization (all that is left, or `amount`)',
      handler: async (ctx) => {
        const amount = await amountOf(ctx, currencyOf(ctx));
        return operate(ctx, (tx, principalId, id) => refundAuthorization(tx, principalId, id, amount));
      },
    },
  ];
}
