// A mandates row as the agent's state holds it: rails, limits and allow/block lists normalised
// once at load so that the mandate gate compares without converting.
import { toAlpha3 } from '../../domain/country.js';
import { fromDb, type Units } from '../../domain/money.js';
import type { MandateState } from './agent-state.js';
import { dayKeyOf, monthKeyOf } from './calendar.js';

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

export interface MandateRow {
  id: string;
  rails: string[] | null;
  currency: string;
  max_amount_per_transaction: string;
  max_daily_amount: string | null;
  max_monthly_amount: string | null;
  allowed_mccs: string[] | null;
  blocked_mccs: string[] | null;
  allowed_countries: string[] | null;
  blocked_countries: string[] | null;
  allowed_chains: string[] | null;
  allowed_assets: string[] | null;
  allowed_counterparties: string[] | null;
  crypto: Record<string, unknown> | null;
  valid_from: Date;
  valid_until: Date;
  created_at: Date;
}

/** Builds a MandateState from a mandates row (exported for tests and fixtures). */
export function mandateFromRow(row: MandateRow, nowMs: number): MandateState {
  const crypto = row.crypto && typeof row.crypto === 'object' ? row.crypto : null;
  const rails = (row.rails ?? ['card']).map((r) => r.toLowerCase());
  const allowedChains = setOf(row.allowed_chains ?? asStrings(crypto?.chains), 'lower');
  const allowedAssets = setOf(row.allowed_assets ?? asStrings(crypto?.assets), 'lower');
  const allowedCounterparties = setOf(row.allowed_counterparties ?? asStrings(crypto?.counterparties), 'lower');
  const perTransaction = moneyOf(row.max_amount_per_transaction) ?? 0n;
  return {
    id: row.id,
    card: rails.includes('card'),
    // A runtime-plane mandate carries crypto permissions as allowed_chains/assets.
    crypto: rails.includes('crypto') || crypto !== null || allowedChains !== null || allowedAssets !== null,
    currency: row.currency.toUpperCase(),
    perTransaction,
    daily: moneyOf(row.max_daily_amount),
    monthly: moneyOf(row.max_monthly_amount),
    cryptoMaxTransfer: crypto ? moneyOf(crypto.max_transfer) : null,
    allowedMccs: setOf(row.allowed_mccs, 'upper'),
    blockedMccs: setOf(row.blocked_mccs, 'upper'),
    allowedCountries: countrySet(row.allowed_countries),
    blockedCountries: countrySet(row.blocked_countries),
    allowedChains,
    allowedAssets,
    allowedCounterparties,
    validFromMs: dbTimeMs(row.valid_from),
    validUntilMs: dbTimeMs(row.valid_until),
    createdAtMs: dbTimeMs(row.created_at),
    dayKey: dayKeyOf(nowMs),
    dayAmount: 0n,
    dayCount: 0,
    monthKey: monthKeyOf(nowMs),
    monthAmount: 0n,
    monthCount: 0,
  };
}
