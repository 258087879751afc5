// Stage 1: mandate selection and the mandate check (docs/decision-engine.md "Mandate check").
// All money comparisons are bigint: a 0.30 cap is filled exactly by 0.10 + 0.20.
import type { Units } from '../domain/money.js';
import type { MandateState } from './agent-state.js';
import { DAY_ALERTS, MONTH_ALERTS, WEEK_ALERTS, YEAR_ALERTS } from './caps.js';
import type { Windows } from './model/calendar.js';
import type { AuthorizeRequest } from './model/contract.js';

export type SelectionReason =
  | 'no_active_mandate'
  | 'rail_not_permitted'
  | 'mandate_expired'
  | 'mandate_not_yet_valid'
  | 'currency_mismatch';

export type MandateReason =
  | 'per_transaction_limit_exceeded'
  | 'crypto_max_transfer_exceeded'
  | 'daily_limit_exceeded'
  | 'monthly_limit_exceeded'
  | 'weekly_limit_exceeded'
  | 'yearly_limit_exceeded'
  | 'total_limit_exceeded'
  | 'daily_count_exceeded'
  | 'monthly_count_exceeded'
  | 'mcc_blocked'
  | 'mcc_not_allowed'
  | 'country_blocked'
  | 'country_not_allowed'
  | 'chain_not_allowed'
  | 'asset_not_allowed'
  | 'counterparty_not_allowed';

export interface Selection {
  /** The mandate the request is judged against (also set for expired / mismatching ones). */
  readonly mandate: MandateState | null;
  /** Why no usable mandate was found, or null. */
  readonly reason: SelectionReason | null;
}

function covers(m: MandateState, rail: AuthorizeRequest['rail']): boolean {
  return rail === 'CRYPTO' ? m.crypto : m.card;
}

/**
 * Picks the newest ACTIVE mandate that covers the request's rail and currency and is inside
 * its validity window. When none is usable, reports the most specific reason together with
 * the mandate it concerns: expired or not yet valid (a mandate in the right currency exists),
 * currency mismatch (mandates cover the rail but none in this currency), rail not permitted,
 * or no active mandate at all.
 */
export function selectMandate(mandates: readonly MandateState[], request: AuthorizeRequest, nowMs: number): Selection {
  if (mandates.length === 0) return { mandate: null, reason: 'no_active_mandate' };
  let firstRail: MandateState | null = null;
  let firstCurrency: MandateState | null = null;
  const only = request.mandateId;
  let seen = 0;
  for (const m of mandates) {
    // A presentation is decided under its mandate only; a plain request never under an imported
    // AP2 mandate (spent only by presentation). One comparison for mandates without terms.
    if (only !== undefined ? m.id !== only : m.terms?.presentationOnly) continue;
    seen++;
    if (!covers(m, request.rail)) continue;
    if (firstRail === null) firstRail = m;
    if (m.currency !== request.currency) continue;
    if (firstCurrency === null) firstCurrency = m;
    if (m.validFromMs <= nowMs && nowMs < m.validUntilMs) return { mandate: m, reason: null };
  }
  if (seen === 0) return { mandate: null, reason: 'no_active_mandate' };
  if (firstRail === null) return { mandate: mandates[0] ?? null, reason: 'rail_not_permitted' };
  if (firstCurrency === null) return { mandate: firstRail, reason: 'currency_mismatch' };
  return {
    mandate: firstCurrency,
    reason: nowMs >= firstCurrency.validUntilMs ? 'mandate_expired' : 'mandate_not_yet_valid',
  };
}

/**
 * Moves the running totals to the current calendar windows (calendar.ts windowsOf, in the
 * Principal's time zone); a window that moved starts from zero and may alert again.
 */
export function rollTotals(m: MandateState, w: Windows): void {
  if (m.dayKey !== w.day) {
    m.dayKey = w.day;
    m.dayAmount = 0n;
    m.dayCount = 0;
    m.alerted &= ~DAY_ALERTS;
  }
  if (m.weekKey !== w.week) {
    m.weekKey = w.week;
    m.weekAmount = 0n;
    m.alerted &= ~WEEK_ALERTS;
  }
  if (m.monthKey !== w.month) {
    m.monthKey = w.month;
    m.monthAmount = 0n;
    m.monthCount = 0;
    m.alerted &= ~MONTH_ALERTS;
  }
  if (m.yearKey !== w.year) {
    m.yearKey = w.year;
    m.yearAmount = 0n;
    m.alerted &= ~YEAR_ALERTS;
  }
}

/**
 * The limits and restrictions of the selected mandate, in this order: per-transaction amount
 * (and the crypto per-transfer cap), the amount caps (day, week, month, year, whole life), the
 * count caps (day, month), MCC, country, crypto chain,
 * asset and counterparty. Returns the first violated rule or null. Totals must be rolled.
 */
export function checkMandate(m: MandateState, request: AuthorizeRequest, amount: Units): MandateReason | null {
  if (amount > m.perTransaction) return 'per_transaction_limit_exceeded';
  if (request.rail === 'CRYPTO' && m.cryptoMaxTransfer !== null && amount > m.cryptoMaxTransfer) {
    return 'crypto_max_transfer_exceeded';
  }
  if (m.daily !== null && m.dayAmount + amount > m.daily) return 'daily_limit_exceeded';
  if (m.weekly !== null && m.weekAmount + amount > m.weekly) return 'weekly_limit_exceeded';
  if (m.monthly !== null && m.monthAmount + amount > m.monthly) return 'monthly_limit_exceeded';
  if (m.yearly !== null && m.yearAmount + amount > m.yearly) return 'yearly_limit_exceeded';
  if (m.total !== null && m.totalAmount + amount > m.total) return 'total_limit_exceeded';
  if (m.dailyCount !== null && m.dayCount + 1 > m.dailyCount) return 'daily_count_exceeded';
  if (m.monthlyCount !== null && m.monthCount + 1 > m.monthlyCount) return 'monthly_count_exceeded';

  const mcc = request.mcc;
  if (mcc && m.blockedMccs?.has(mcc)) return 'mcc_blocked';
  if (m.allowedMccs !== null && (mcc === null || !m.allowedMccs.has(mcc))) return 'mcc_not_allowed';

  const country = request.country;
  if (country && m.blockedCountries?.has(country)) return 'country_blocked';
  if (m.allowedCountries !== null && (country === null || !m.allowedCountries.has(country))) {
    return 'country_not_allowed';
  }

  if (request.rail === 'CRYPTO') {
    const c = request.crypto;
    if (m.allowedChains !== null && !inSet(m.allowedChains, c?.chain)) return 'chain_not_allowed';
    if (m.allowedAssets !== null && !inSet(m.allowedAssets, c?.asset)) return 'asset_not_allowed';
    if (m.allowedCounterparties !== null && !inSet(m.allowedCounterparties, c?.counterparty)) {
      return 'counterparty_not_allowed';
    }
  }
  return null;
}

function inSet(set: ReadonlySet<string>, value: string | undefined): boolean {
  return value !== undefined && set.has(value.toLowerCase());
}
