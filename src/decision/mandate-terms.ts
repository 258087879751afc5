// The richer terms of a mandate in the decision (docs/mandate-lifecycle.md "Terms"): allowed
// payees and a merchant lock, a minimum amount, an execution window with optional days of the
// week, and recurrence (one occurrence per calendar period of the Principal's time zone, and a
// maximum number of occurrences over the mandate's life). A mandate without any of them has
// `terms` null: the pipeline checks `m.terms !== null` once and nothing here runs for it.
import { Temporal } from 'temporal-polyfill';
import { fromDb, type Units } from '../domain/money.js';
import type { Sql } from '../storage/db.js';
import type { Frequency, StoredTerms, Weekday } from '../storage/rows/mandates.js';
import type { MandateState, TermsState } from './agent-state.js';
import type { Windows } from './model/calendar.js';
import type { AuthorizeRequest } from './model/contract.js';
import { reads } from './reads.js';

const DAY_MS = 86_400_000;
const WEEKDAYS: readonly Weekday[] = ['MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT', 'SUN'];

export type { TermsState };

export type TermsReason =
  | 'amount_below_minimum'
  | 'outside_execution_window'
  | 'day_of_week_not_allowed'
  | 'payee_not_allowed'
  | 'payee_locked'
  | 'recurrence_max_occurrences_reached'
  | 'recurrence_period_used';

/** Builds the state of stored terms (null: the mandate has none). */
export function termsFromStored(stored: StoredTerms | null | undefined, validFromMs: number): TermsState | null {
  if (stored === null || stored === undefined || typeof stored !== 'object') return null;
  const w = stored.execution_window;
  let days = 0;
  for (const d of w?.days_of_week ?? []) {
    const i = WEEKDAYS.indexOf(d);
    if (i >= 0) days |= 1 << i;
  }
  const r = stored.recurrence;
  const frequency = r?.frequency ?? null;
  const maxOccurrences = r?.max_occurrences ?? null;
  return {
    minAmount: stored.min_amount_per_transaction === undefined ? null : fromDb(stored.min_amount_per_transaction),
    payees: stored.allowed_payees === undefined ? null : new Set(stored.allowed_payees),
    merchantLock: stored.merchant_lock === true,
    notBeforeMs: w?.not_before === undefined ? Number.NEGATIVE_INFINITY : Date.parse(w.not_before),
    notAfterMs: w?.not_after === undefined ? Number.POSITIVE_INFINITY : Date.parse(w.not_after),
    days,
    frequency,
    maxOccurrences,
    anchorMs: validFromMs,
    presentationOnly: stored.presentation_only === true,
    counts: frequency !== null || maxOccurrences !== null,
    lockedPayee: null,
    periodDay: Number.NaN,
    periodStart: Number.NaN,
    periodCount: 0,
    occurrences: 0,
  };
}

/** ISO day of the week (1 Monday .. 7 Sunday) of the local day `w` is in. */
export function isoDayOf(w: Windows): number {
  // A week start and a day start of one zone differ by whole local days; a DST change between
  // them moves the difference by an hour at most, which the rounding absorbs.
  return Math.round((w.day - w.week) / DAY_MS) + 1;
}

/**
 * The start of the calendar period of `frequency` that the local day of `w` is in, in the
 * Principal's zone `tz` (NaN for ON_DEMAND): the day, the ISO week (Monday), the pair of ISO
 * weeks counted from the week of `anchorMs`, the month, the quarter (January, April, July,
 * October) or the year. Each starts at the first instant of its local date (calendar.ts).
 */
export function periodStartOf(frequency: Frequency, w: Windows, tz: string, anchorMs: number): number {
  switch (frequency) {
    case 'ON_DEMAND':
      return Number.NaN;
    case 'DAILY':
      return w.day;
    case 'WEEKLY':
      return w.week;
    case 'MONTHLY':
      return w.month;
    case 'ANNUALLY':
      return w.year;
    case 'QUARTERLY': {
      const month = Temporal.Instant.fromEpochMilliseconds(w.month).toZonedDateTimeISO(tz);
      const first = month.month - ((month.month - 1) % 3);
      return first === month.month ? w.month : month.with({ month: first, day: 1 }).startOfDay().epochMilliseconds;
    }
    case 'BIWEEKLY': {
      const anchor = Temporal.Instant.fromEpochMilliseconds(anchorMs).toZonedDateTimeISO(tz);
      const anchorWeek = anchor.subtract({ days: anchor.dayOfWeek - 1 }).startOfDay().epochMilliseconds;
      const weeks = Math.round((w.week - anchorWeek) / (7 * DAY_MS));
      if (((weeks % 2) + 2) % 2 === 0) return w.week;
      return Temporal.Instant.fromEpochMilliseconds(w.week).toZonedDateTimeISO(tz).subtract({ days: 7 }).startOfDay()
        .epochMilliseconds;
    }
  }
}

/**
 * Moves the recurrence period to the one of `w` (once per local day); a period that moved
 * starts from zero occurrences.
 */
export function rollTerms(t: TermsState, w: Windows, tz: string): void {
  if (t.periodDay === w.day || t.frequency === null || t.frequency === 'ON_DEMAND') return;
  const start = periodStartOf(t.frequency, w, tz, t.anchorMs);
  if (start !== t.periodStart) {
    t.periodStart = start;
    t.periodCount = 0;
  }
  t.periodDay = w.day;
}

/**
 * The terms checks, in this order: minimum amount, execution window, day of the week, allowed
 * payees, merchant lock, maximum occurrences, one occurrence per period. Returns the first
 * violated term or null. The period must be rolled (rollTerms).
 */
export function checkTerms(
  t: TermsState,
  req: AuthorizeRequest,
  amount: Units,
  nowMs: number,
  w: Windows,
): TermsReason | null {
  if (t.minAmount !== null && amount < t.minAmount) return 'amount_below_minimum';
  if (nowMs < t.notBeforeMs || nowMs > t.notAfterMs) return 'outside_execution_window';
  if (t.days !== 0 && (t.days & (1 << (isoDayOf(w) - 1))) === 0) return 'day_of_week_not_allowed';
  const payee = req.merchantId;
  if (t.payees !== null && (payee === null || !t.payees.has(payee))) return 'payee_not_allowed';
  if (t.merchantLock) {
    if (payee === null) return 'payee_not_allowed';
    if (t.lockedPayee !== null && payee !== t.lockedPayee) return 'payee_locked';
  }
  if (t.maxOccurrences !== null && t.occurrences + 1 > t.maxOccurrences) return 'recurrence_max_occurrences_reached';
  if (t.frequency !== null && t.frequency !== 'ON_DEMAND' && t.periodCount >= 1) return 'recurrence_period_used';
  return null;
}

/** An APPROVE under the mandate (holds included): one occurrence, and the lock's payee. */
export function noteTermsApproval(t: TermsState, merchantId: string | null): void {
  t.occurrences++;
  t.periodCount++;
  if (t.merchantLock && t.lockedPayee === null) t.lockedPayee = merchantId;
}

/** Weekday names of a days bitmask (for details and explain). */
export function weekdaysOf(days: number): Weekday[] {
  const out: Weekday[] = [];
  for (let i = 0; i < 7; i++) if ((days & (1 << i)) !== 0) out.push(WEEKDAYS[i] as Weekday);
  return out;
}

interface TermsUsageRow {
  n: number;
  period_n: number;
  back: number;
  period_back: number;
  locked: string | null;
}

/**
 * At load: the occurrences of each mandate whose terms count them (APPROVE rows under it, holds
 * included, less the counts released and expired holds gave back in budget_credits), over its
 * life and in its current recurrence period, and the payee its merchant lock holds (the
 * merchant_id of its first approval). Nothing is read for mandates without such terms; returns
 * the function that sets what was read (called once the mandates are built).
 */
export async function readTermsUsage(
  sql: Sql,
  agentId: string,
  mandates: readonly MandateState[],
  w: Windows,
  tz: string,
): Promise<() => void> {
  const todo = mandates.filter((m) => m.terms !== null && (m.terms.counts || m.terms.merchantLock));
  if (todo.length === 0) return () => {};
  const rows = await reads(
    sql,
    ...todo.map((m) => () => {
      const t = m.terms as TermsState;
      rollTerms(t, w, tz);
      // ON_DEMAND and no frequency: the period is the whole life.
      const from = new Date(Number.isNaN(t.periodStart) ? 0 : t.periodStart);
      return sql<TermsUsageRow[]>`
        select
          (select count(*) from authorizations
            where agent_id = ${agentId} and mandate_id = ${m.id} and decision = 'APPROVE')::int as n,
          (select count(*) from authorizations
            where agent_id = ${agentId} and mandate_id = ${m.id} and decision = 'APPROVE'
              and created_at >= ${from})::int as period_n,
          (select coalesce(sum(count_back), 0) from budget_credits
            where agent_id = ${agentId} and mandate_id = ${m.id})::int as back,
          (select coalesce(sum(count_back), 0) from budget_credits
            where agent_id = ${agentId} and mandate_id = ${m.id} and authorized_at >= ${from})::int as period_back,
          (select merchant_id from authorizations
            where agent_id = ${agentId} and mandate_id = ${m.id} and decision = 'APPROVE' and merchant_id is not null
              and not exists (select 1 from authorization_voids v where v.authorization_id = authorizations.id)
            order by created_at, id limit 1) as locked`;
    }),
  );
  return () => {
    todo.forEach((m, i) => {
      const t = m.terms as TermsState;
      const r = rows[i]?.[0];
      if (r === undefined) return;
      t.occurrences = r.n - r.back;
      t.periodCount = r.period_n - r.period_back;
      t.lockedPayee = t.merchantLock ? r.locked : null;
    });
  };
}
