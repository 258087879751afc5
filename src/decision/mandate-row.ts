// A mandates row as the agent's state holds it: rails, limits and allow/block lists normalised
// once at load so that the mandate gate compares without converting.
import { toAlpha3 } from '../domain/country.js';
import { fromDb, type Units } from '../domain/money.js';
import type { MandateExtraLimitColumn, MandateRow } from '../storage/rows/mandates.js';
import type { MandateState } from './agent-state.js';
import { termsFromStored } from './mandate-terms.js';
import { windowsOf } from './model/calendar.js';

function setOf(values: readonly string[] | null | undefined, norm: 'upper' | 'lower'): ReadonlySet<string> | null {
  if (!values || values.length === 0) return null;
  const s = new Set<string>();
  for (const v of values)
    if (typeof v === 'string') s.add(norm === 'upper' ? v.trim().toUpperCase() : v.trim().toLowerCase());
  return s.size === 0 ? null : s;
}

function countrySet(values: readonly string[] | null | undefined): ReadonlySet<string> | null {
  if (!values || values.length === 0) return null;
  const s = new Set<string>();
  for (const v of values) {
    if (typeof v !== 'string') continue;
    s.add(toAlpha3(v) ?? v.trim().toUpperCase());
  }
  return s.size === 0 ? null : s;
}

/** A timestamp column (Date, or text and numbers from fixtures) in ms since the epoch (0: none). */
export function dbTimeMs(value: unknown): number {
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'string' || typeof value === 'number') return new Date(value).getTime();
  return 0;
}

function asStrings(value: unknown): string[] | null {
  return Array.isArray(value) ? (value.filter((v) => typeof v === 'string') as string[]) : null;
}

function moneyOf(value: unknown): Units | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return fromDb(String(value));
  return fromDb(String(value));
}

/**
 * The columns of a mandates row mandateFromRow reads (load.ts selects them); the limits of
 * migration 0160 may be absent (older fixtures): no such limit.
 */
export type LoadedMandateRow = Pick<
  MandateRow,
  | 'id'
  | 'rails'
  | 'currency'
  | 'max_amount_per_transaction'
  | 'max_daily_amount'
  | 'max_monthly_amount'
  | 'allowed_mccs'
  | 'blocked_mccs'
  | 'allowed_countries'
  | 'blocked_countries'
  | 'allowed_chains'
  | 'allowed_assets'
  | 'allowed_counterparties'
  | 'crypto'
  | 'valid_from'
  | 'valid_until'
  | 'created_at'
> &
  Partial<Pick<MandateRow, MandateExtraLimitColumn | 'terms'>>;

/** Builds a MandateState from a mandates row (exported for tests and fixtures). */
/** A manual hold lives 7 days unless its mandate says otherwise (hold_expiry_seconds). */
export const DEFAULT_HOLD_TTL_MS = 7 * 86_400_000;
/** budget.threshold_reached at 80 % of a cap unless the mandate says otherwise (budget_alert_share). */
export const DEFAULT_ALERT_SHARE = 80_000_000n;

function countOf(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : null;
}

export function mandateFromRow(row: LoadedMandateRow, nowMs: number, timeZone = 'UTC'): MandateState {
  const crypto = row.crypto && typeof row.crypto === 'object' ? row.crypto : null;
  const rails = (row.rails ?? ['card']).map((r) => r.toLowerCase());
  const allowedChains = setOf(row.allowed_chains ?? asStrings(crypto?.chains), 'lower');
  const allowedAssets = setOf(row.allowed_assets ?? asStrings(crypto?.assets), 'lower');
  const allowedCounterparties = setOf(row.allowed_counterparties ?? asStrings(crypto?.counterparties), 'lower');
  const perTransaction = moneyOf(row.max_amount_per_transaction) ?? 0n;
  const windows = windowsOf(timeZone, nowMs);
  const validFromMs = dbTimeMs(row.valid_from);
  return {
    id: row.id,
    card: rails.includes('card'),
    // A runtime-plane mandate carries crypto permissions as allowed_chains/assets.
    crypto: rails.includes('crypto') || crypto !== null || allowedChains !== null || allowedAssets !== null,
    currency: row.currency.toUpperCase(),
    perTransaction,
    daily: moneyOf(row.max_daily_amount),
    monthly: moneyOf(row.max_monthly_amount),
    weekly: moneyOf(row.max_weekly_amount),
    yearly: moneyOf(row.max_yearly_amount),
    total: moneyOf(row.max_total_amount),
    dailyCount: countOf(row.max_daily_count),
    monthlyCount: countOf(row.max_monthly_count),
    holdTtlMs: (countOf(row.hold_expiry_seconds) ?? DEFAULT_HOLD_TTL_MS / 1000) * 1000,
    alertShare: moneyOf(row.budget_alert_share) ?? DEFAULT_ALERT_SHARE,
    cryptoMaxTransfer: crypto ? moneyOf(crypto.max_transfer) : null,
    allowedMccs: setOf(row.allowed_mccs, 'upper'),
    blockedMccs: setOf(row.blocked_mccs, 'upper'),
    allowedCountries: countrySet(row.allowed_countries),
    blockedCountries: countrySet(row.blocked_countries),
    allowedChains,
    allowedAssets,
    allowedCounterparties,
    validFromMs,
    validUntilMs: dbTimeMs(row.valid_until),
    createdAtMs: dbTimeMs(row.created_at),
    terms: termsFromStored(row.terms, validFromMs),
    dayKey: windows.day,
    dayAmount: 0n,
    dayCount: 0,
    weekKey: windows.week,
    weekAmount: 0n,
    monthKey: windows.month,
    monthAmount: 0n,
    monthCount: 0,
    yearKey: windows.year,
    yearAmount: 0n,
    totalAmount: 0n,
    alerted: 0,
  };
}
