// GET, PUT and DELETE /api/v1/principals/:principal_id/budget: one budget for all of a
// Principal's agents together, per calendar window of its time zone (docs/principal-budget.md).
// The decision engine enforces it with escrowed slices (src/decision/principal-budget.ts);
// the view here is read from PostgreSQL, the truth the slices are built from. A change reaches
// every agent of the Principal before the answer (invalidatePrincipal: the actors reload and
// give their slack back to the pool).
import type { Services } from '../app/services.js';
import { windowsOf } from '../decision/model/calendar.js';
import { currencyExponent, isIsoCurrency } from '../domain/currency.js';
import type { BudgetWindow } from '../domain/decision.js';
import { fromDb, readAmount, SCALE, toDb, toJsonNumber, type Units } from '../domain/money.js';
import { ApiError } from '../errors/registry.js';
import { exactAmounts } from '../http/json-source.js';
import { json, type RouteDef } from '../http/types.js';
import type { Sql } from '../storage/db.js';
import type { PrincipalBudgetRow } from '../storage/rows/principal-budgets.js';
import type { PrincipalRow } from '../storage/rows/principals.js';
import { bodyOf, ownPrincipal } from './context.js';
import { invalidatePrincipal } from './engine-handle.js';

const AMOUNT_PATHS = [['amount']] as const;

interface BudgetBody {
  amount: string;
  currency: string;
  window: BudgetWindow;
  alert_share?: number;
}

type BudgetRow = Pick<PrincipalBudgetRow, 'amount' | 'currency' | 'budget_window' | 'alert_share' | 'effective_from'>;

const u = (text: string | null): Units => fromDb(text) ?? 0n;

/** `v` within [0, max] (0 when max is below 0). */
function clamp(v: Units, max: Units): Units {
  if (v <= 0n || max <= 0n) return 0n;
  return v < max ? v : max;
}

/** The budget and its usage in the current window; null when the Principal has none. */
export async function budgetView(db: Sql, principalId: string, nowMs: number): Promise<Record<string, unknown> | null> {
  const [b] = await db<(BudgetRow & Pick<PrincipalRow, 'timezone'>)[]>`
    select b.amount::text as amount, b.currency, b.budget_window, b.alert_share::text as alert_share,
           b.effective_from, p.timezone
    from principal_budgets b join principals p on p.id = b.principal_id
    where b.principal_id = ${principalId}`;
  if (b === undefined) return null;
  const windowStart = windowsOf(b.timezone, nowMs)[b.budget_window];
  const from = new Date(Math.max(windowStart, b.effective_from.getTime()));
  // Per agent on the authorizations (agent_id, created_at) index: no scan of the Principal's log.
  const [s] = await db<{ approved: string; credited: string; held: string; granted: string | null }[]>`
    select
      coalesce((select sum(x.s) from agents a cross join lateral (
        select sum(z.amount) as s from authorizations z
        where z.agent_id = a.id and z.decision = 'APPROVE' and z.currency = ${b.currency} and z.created_at >= ${from}
      ) x where a.principal_id = ${principalId}), 0)::text as approved,
      coalesce((select sum(c.amount) from budget_credits c join authorizations z on z.id = c.authorization_id
        where c.principal_id = ${principalId} and c.authorized_at >= ${from} and z.currency = ${b.currency}), 0)::text
        as credited,
      coalesce((select sum(h.amount) from holds h
        where h.principal_id = ${principalId} and h.status = 'HELD' and h.currency = ${b.currency}
          and h.authorized_at >= ${from}), 0)::text as held,
      (select granted::text from principal_budget_pools
        where principal_id = ${principalId} and window_start = ${new Date(windowStart)}) as granted`;
  const limit = u(b.amount);
  const approved = u(s?.approved ?? '0');
  const held = u(s?.held ?? '0');
  const spent = approved - u(s?.credited ?? '0');
  const remaining = limit - spent;
  const escrowed = u(s?.granted ?? null) - approved;
  return {
    principal_id: principalId,
    amount: toJsonNumber(limit),
    currency: b.currency,
    window: b.budget_window,
    alert_share: Number(b.alert_share),
    effective_from: b.effective_from.toISOString(),
    usage: {
      window: b.budget_window,
      window_start: new Date(windowStart).toISOString(),
      limit: toJsonNumber(limit),
      used: toJsonNumber(spent - held),
      held: toJsonNumber(held),
      remaining: toJsonNumber(remaining > 0n ? remaining : 0n),
      escrowed: toJsonNumber(clamp(escrowed, remaining)),
    },
  };
}

export function principalBudgetRoutes(services: Services): RouteDef[] {
  const path = '/api/v1/principals/:principal_id/budget';
  return [
    {
      method: 'GET',
      path,
      auth: 'principal',
      response: 'PrincipalBudget',
      operationId: 'getPrincipalBudget',
      summary: "The Principal's budget for all of its agents and its usage in the current window",
      handler: async (ctx) => {
        const auth = ownPrincipal(ctx);
        const { db } = ctx;
        const view = await budgetView(db, auth.principalId, Date.now());
        if (view === null) throw new ApiError('principal_budget_not_found');
        return json(200, view);
      },
    },
    {
      method: 'PUT',
      path,
      auth: 'principal',
      body: 'PrincipalBudgetRequest',
      response: 'PrincipalBudget',
      operationId: 'setPrincipalBudget',
      summary: "Set the Principal's budget for all of its agents (per day, week, month or year)",
      handler: async (ctx) => {
        const auth = ownPrincipal(ctx);
        const { db } = ctx;
        exactAmounts(ctx, AMOUNT_PATHS);
        const b = bodyOf<BudgetBody>(ctx);
        if (!isIsoCurrency(b.currency)) {
          throw new ApiError('validation_error', undefined, {
            details: [{ field: 'currency', message: 'is not an ISO 4217 currency code' }],
          });
        }
        const amount = readAmount(String(b.amount).trim(), currencyExponent(b.currency) ?? SCALE, b.currency);
        const problem = typeof amount === 'string' ? amount : amount <= 0n ? 'must be greater than 0' : null;
        if (problem !== null) {
          throw new ApiError('validation_error', undefined, {
            details: [{ field: 'amount', code: 'invalid_amount', message: problem }],
          });
        }
        const share = b.alert_share ?? 0.8;
        await db.begin(async (tx) => {
          const [old] = await tx<Pick<PrincipalBudgetRow, 'currency' | 'budget_window'>[]>`
            select currency, budget_window from principal_budgets where principal_id = ${auth.principalId} for update`;
          if (old === undefined) {
            await tx`insert into principal_budgets (principal_id, amount, currency, budget_window, alert_share)
              values (${auth.principalId}, ${toDb(amount as Units)}, ${b.currency}, ${b.window}, ${share})`;
          } else if (old.currency !== b.currency || old.budget_window !== b.window) {
            // Another currency or window is another budget: it starts afresh from now.
            await tx`delete from principal_budget_slices where principal_id = ${auth.principalId}`;
            await tx`delete from principal_budget_pools where principal_id = ${auth.principalId}`;
            await tx`update principal_budgets set amount = ${toDb(amount as Units)}, currency = ${b.currency},
                budget_window = ${b.window}, alert_share = ${share}, effective_from = now(),
                version = nextval('principal_budget_versions'), updated_at = now()
              where principal_id = ${auth.principalId}`;
          } else {
            await tx`update principal_budgets set amount = ${toDb(amount as Units)}, alert_share = ${share},
                version = nextval('principal_budget_versions'), updated_at = now()
              where principal_id = ${auth.principalId}`;
          }
        });
        await invalidatePrincipal(services, auth.environment, auth.principalId);
        return json(200, await budgetView(db, auth.principalId, Date.now()));
      },
    },
    {
      method: 'DELETE',
      path,
      auth: 'principal',
      successStatus: 204,
      operationId: 'deletePrincipalBudget',
      summary: "Remove the Principal's budget (its agents are then bound by their mandates only)",
      handler: async (ctx) => {
        const auth = ownPrincipal(ctx);
        const { db } = ctx;
        const removed = await db.begin(async (tx) => {
          const rows = await tx`delete from principal_budgets where principal_id = ${auth.principalId} returning 1`;
          await tx`delete from principal_budget_slices where principal_id = ${auth.principalId}`;
          await tx`delete from principal_budget_pools where principal_id = ${auth.principalId}`;
          return rows.length;
        });
        if (removed === 0) throw new ApiError('principal_budget_not_found');
        await invalidatePrincipal(services, auth.environment, auth.principalId);
        return { status: 204 };
      },
    },
  ];
}
