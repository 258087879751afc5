// The Principal budget as one agent's actor sees it (docs/principal-budget.md): an escrowed
// slice of the Principal's budget for the current window, spent in memory on the hot path and
// grown or given back by one fenced transaction each (migrations/0220_principal_budgets.sql).
//
// `remaining` is the slice (granted in PostgreSQL) less what the agent approved in the window
// in the budget's currency (its audit rows, holds included): the actor never approves beyond
// it, and only grants raise it, so the fleet never spends more than the pool handed out, which
// never passes the budget plus what settlements gave back.

import { currencyExponent } from '../domain/currency.js';
import type { BudgetWindow } from '../domain/decision.js';
import { fromDb, parseAmount, SCALE, toDb, type Units } from '../domain/money.js';
import { type OutboxTuple, outboxEvent, writeOutbox } from '../events/outbox.js';
import type { Sql } from '../storage/db.js';
import type { PrincipalBudgetRow } from '../storage/rows/principal-budgets.js';
import type { AgentState, BudgetState } from './agent-state.js';
import { spendableBy } from './caps.js';
import { isoOf, type Windows, windowsOf } from './model/calendar.js';
import type { AuthorizeRequest } from './model/contract.js';

export type { BudgetState };

/** After a background top-up found nothing to take, the next one waits this long (ms). */
const TOP_UP_PAUSE_MS = 1_000;
/** Parts of the budget a grant adds at most beyond what the request needs. */
const EXTRA_PARTS = 64n;

/** The Principal's budget as the agent's load query left-joins it, renamed budget_* (all null: none). */
export interface BudgetRow {
  budget_amount: PrincipalBudgetRow['amount'] | null;
  budget_currency: PrincipalBudgetRow['currency'] | null;
  budget_window: PrincipalBudgetRow['budget_window'] | null;
  budget_effective_from: PrincipalBudgetRow['effective_from'] | null;
  budget_version: PrincipalBudgetRow['version'] | null;
}

function startOf(w: Windows, window: BudgetWindow): number {
  return w[window];
}

/** Reads the agent's slice and spend in the current window (after the agent row named a budget). */
export async function loadBudget(
  sql: Sql,
  agentId: string,
  principalId: string,
  row: BudgetRow,
  timeZone: string,
  nowMs: number,
): Promise<BudgetState | null> {
  if (row.budget_amount === null || row.budget_currency === null || row.budget_window === null) return null;
  const windowStart = startOf(windowsOf(timeZone, nowMs), row.budget_window);
  const effectiveFromMs = row.budget_effective_from === null ? 0 : row.budget_effective_from.getTime();
  const from = new Date(Math.max(windowStart, effectiveFromMs));
  const [r] = await sql<{ granted: string | null; spent: string }[]>`
    select (select granted::text from principal_budget_slices
              where principal_id = ${principalId} and window_start = ${new Date(windowStart)} and agent_id = ${agentId}) as granted,
           coalesce((select sum(amount) from authorizations
              where agent_id = ${agentId} and decision = 'APPROVE' and currency = ${row.budget_currency}
                and created_at >= ${from}), 0)::text as spent`;
  const limit = fromDb(row.budget_amount) ?? 0n;
  const exp = currencyExponent(row.budget_currency) ?? 2;
  const unit = 10n ** BigInt(SCALE - Math.min(exp, SCALE));
  return {
    version: row.budget_version ?? '0',
    limit,
    currency: row.budget_currency,
    window: row.budget_window,
    effectiveFromMs,
    unit,
    extra: (limit / EXTRA_PARTS / unit) * unit,
    windowStart,
    remaining: (fromDb(r?.granted ?? null) ?? 0n) - (fromDb(r?.spent ?? '0') ?? 0n),
    topUpAfterMs: Number.NEGATIVE_INFINITY,
  };
}

/** Moves the slice to the current window: a new window starts with an empty slice. */
export function rollBudget(b: BudgetState, w: Windows): void {
  const start = startOf(w, b.window);
  if (b.windowStart !== start) {
    b.windowStart = start;
    b.remaining = 0n;
    b.topUpAfterMs = Number.NEGATIVE_INFINITY;
  }
}

function applies(b: BudgetState | null, req: AuthorizeRequest, nowMs: number): b is BudgetState {
  return b !== null && req.currency === b.currency && nowMs >= b.effectiveFromMs;
}

/**
 * What the slice lacks for this request (0: nothing to ask for). Asked before the decision,
 * off the pure pipeline: the actor grows the slice first (one transaction), then decides. Every
 * request beyond the slice asks the pool (no pause after a short answer: a settlement may have
 * given budget back since), so a decline always reflects the pool at that moment.
 */
export function budgetNeed(state: AgentState, req: AuthorizeRequest, nowMs: number): Units {
  const b = state.budget;
  // Most agents have no Principal budget: this runs before every decision, so it parses nothing then.
  if (!applies(b, req, nowMs)) return 0n;
  const amount = parseAmount(req.amount) ?? 0n;
  rollBudget(b, windowsOf(state.timeZone, nowMs));
  if (amount <= b.remaining) return 0n;
  // Nothing is asked for a request the agent's status or mandates decline anyway (an amount over
  // every per-transaction limit would otherwise pull the fleet's budget into this slice).
  if (state.status !== 'ACTIVE' || !coverable(state, req, amount)) return 0n;
  return amount - b.remaining;
}

/**
 * Some mandate the request may be decided under (caps.ts spendableBy: a presentation's own, never
 * a presentation-only one for an ordinary request) allows this amount per transaction in its currency.
 */
function coverable(state: AgentState, req: AuthorizeRequest, amount: Units): boolean {
  for (const m of state.mandates) {
    if (m.currency === req.currency && amount <= m.perTransaction && spendableBy(m, req.mandateId)) return true;
  }
  return false;
}

/** The gate: true when the request counts in the budget and the slice cannot cover it. */
export function budgetExceeded(
  state: AgentState,
  req: AuthorizeRequest,
  amount: Units,
  nowMs: number,
  w: Windows,
): boolean {
  const b = state.budget;
  if (!applies(b, req, nowMs)) return false;
  rollBudget(b, w);
  return amount > b.remaining;
}

/** An APPROVE (a hold included) spends its amount from the slice. */
export function spendBudget(state: AgentState, req: AuthorizeRequest, amount: Units, nowMs: number): void {
  const b = state.budget;
  if (applies(b, req, nowMs)) b.remaining -= amount;
}

/** True when the slice runs low after a spend: the actor tops it up in the background. */
export function budgetLow(state: AgentState, nowMs: number): boolean {
  const b = state.budget;
  return (
    b !== null &&
    b.extra > 0n &&
    b.remaining < b.extra / 4n &&
    nowMs >= b.topUpAfterMs &&
    b.windowStart === startOf(windowsOf(state.timeZone, nowMs), b.window)
  );
}

/**
 * 'recalled': short, and this grant asked the other actors of the Principal for their slack (at
 * most once a second per pool): asking again a few milliseconds later may find it.
 */
export type GrantStatus = 'granted' | 'short' | 'recalled' | 'stale';

interface GrantRow {
  status: GrantStatus;
  grant_amount: string;
  available: string;
  first_threshold: boolean;
  first_exhausted: boolean;
  recalled: boolean;
}

type Fence = AuthorizeRequest['fence'];

function fenceArrays(fence: Fence): [number[] | null, string[] | null] {
  return fence === undefined ? [null, null] : [[fence.shard], [String(fence.epoch)]];
}

/**
 * Grows the slice by `need` (0: a prefetch) plus a speculative part, in one transaction with
 * the Principal-level events it earns (once per window each). `declined` is the amount of the
 * request waiting for it (for principal_budget.exhausted). The slice in memory grows only once
 * the transaction has committed, and only if it still belongs to the same window.
 */
export async function grantBudget(
  sql: Sql,
  state: AgentState,
  need: Units,
  declined: Units,
  fence: Fence,
  nowMs: number,
): Promise<GrantStatus> {
  const b = state.budget;
  if (b === null) return 'stale';
  const windowStart = b.windowStart;
  const [shards, epochs] = fenceArrays(fence);
  const row = (await sql.begin(async (tx) => {
    const [r] = await tx<GrantRow[]>`
      select status, grant_amount::text as grant_amount, available::text as available, first_threshold,
             first_exhausted, recalled
      from asas_budget_grant(${state.principalId}, ${state.agentId}, ${new Date(windowStart)}, ${b.version}::bigint,
        ${toDb(need)}::numeric, ${toDb(b.extra)}::numeric, ${toDb(b.unit)}::numeric, ${shards}::int[],
        ${epochs}::bigint[])`;
    if (r === undefined) throw new Error('asas_budget_grant returned nothing');
    const events: OutboxTuple[] = [];
    const base = {
      principal_id: state.principalId,
      window: b.window,
      window_start: isoOf(windowStart),
      limit: toDb(b.limit),
      currency: b.currency,
    };
    if (r.first_threshold) {
      events.push(
        tuple(state, 'principal_budget.threshold_reached', {
          ...base,
          allocated: toDb(b.limit - (fromDb(r.available) ?? 0n)),
          available: toDb(fromDb(r.available) ?? 0n),
        }),
      );
    }
    if (r.first_exhausted && need > 0n) {
      events.push(
        tuple(state, 'principal_budget.exhausted', {
          ...base,
          agent_id: state.agentId,
          available: toDb(fromDb(r.available) ?? 0n),
          declined_amount: toDb(declined),
        }),
      );
    }
    await writeOutbox(tx, events);
    return r;
  })) as GrantRow;
  const granted = row.status === 'granted' ? (fromDb(row.grant_amount) ?? 0n) : 0n;
  if (granted > 0n && b.windowStart === windowStart) b.remaining += granted;
  if (need === 0n && granted === 0n) b.topUpAfterMs = nowMs + TOP_UP_PAUSE_MS;
  return row.status === 'short' && row.recalled ? 'recalled' : row.status;
}

/**
 * What the Principal's pool has not handed out in the slice's window (budget plus credits less
 * grants), read without a lock and without changing anything: the dry run's answer to "would a
 * grant cover this request". Slack that sibling agents hold, which a real decision could
 * recall, is not counted. 0 when the budget changed since the slice was loaded.
 */
export async function poolAvailable(sql: Sql, state: AgentState): Promise<Units> {
  const b = state.budget;
  if (b === null) return 0n;
  const [r] = await sql<{ available: string }[]>`
    select (bu.amount + coalesce(p.credited, 0) - coalesce(p.granted, 0))::text as available
    from principal_budgets bu
    left join principal_budget_pools p on p.principal_id = bu.principal_id and p.window_start = ${new Date(b.windowStart)}
    where bu.principal_id = ${state.principalId} and bu.version = ${b.version}::bigint`;
  const available = r === undefined ? 0n : (fromDb(r.available) ?? 0n);
  return available > 0n ? available : 0n;
}

/** An outbox tuple (migrations/0080) of an event that belongs to no authorization. */
function tuple(state: AgentState, eventType: string, data: Record<string, unknown>): OutboxTuple {
  return outboxEvent({ clientId: state.clientId, principalId: state.principalId }, eventType, data);
}

/**
 * Takes the slack of the slice (what is left of it and not spent) out of memory at once, so no
 * decision can spend it, and returns it: the caller gives it back to the pool (returnBudget).
 */
export function takeSlack(state: AgentState): { readonly windowStart: number; readonly amount: Units } | null {
  const b = state.budget;
  if (b === null || b.remaining <= 0n) return null;
  const amount = b.remaining;
  b.remaining = 0n;
  return { windowStart: b.windowStart, amount };
}

/** Gives slack taken by takeSlack back to the pool; false when the slice did not hold it (reload). */
export async function returnBudget(
  sql: Sql,
  state: AgentState,
  slack: { readonly windowStart: number; readonly amount: Units },
  fence: Fence,
): Promise<boolean> {
  const [shards, epochs] = fenceArrays(fence);
  const [r] = await sql<{ ok: boolean }[]>`
    select asas_budget_return(${state.principalId}, ${state.agentId}, ${new Date(slack.windowStart)},
      ${toDb(slack.amount)}::numeric, ${shards}::int[], ${epochs}::bigint[]) as ok`;
  return r?.ok === true;
}
