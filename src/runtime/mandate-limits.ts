// The mandate limits beyond the per-transaction, daily and monthly amounts, shared
// by both mandate planes (runtime: top-level fields; onboarding: inside `limits`) and by the
// views (docs/holds.md "Limits"): calendar week and year caps, a cap over the mandate's whole
// life, day and month count caps, the hold expiry and the budget alert share; and the checks of
// an amount limit and of a country list both planes' creation and PATCH share.
import { toAlpha3 } from '../domain/country.js';
import { currencyExponent } from '../domain/currency.js';
import {
  formatAmount,
  fromDb,
  parseAmount,
  readAmount,
  SCALE,
  toDb,
  toJsonNumber,
  type Units,
} from '../domain/money.js';
import type { ErrorDetail } from '../errors/registry.js';
import type { MandateExtraLimitColumn, MandateRow } from '../storage/rows/mandates.js';

export interface ExtraLimitsInput {
  max_weekly_amount?: string | number;
  max_yearly_amount?: string | number;
  max_total_amount?: string | number;
  max_daily_count?: number;
  max_monthly_count?: number;
  hold_expiry_seconds?: number;
  budget_alert_share?: number;
}

export interface ExtraLimits {
  weekly: Units | null;
  yearly: Units | null;
  total: Units | null;
  dailyCount: number | null;
  monthlyCount: number | null;
  holdExpirySeconds: number | null;
  alertShare: Units | null;
}

/** The amount fields, for exactAmounts (JSON numbers read from their source text). */
export const EXTRA_AMOUNT_FIELDS = ['max_weekly_amount', 'max_yearly_amount', 'max_total_amount'] as const;

/**
 * Positive, with at most the currency's ISO 4217 minor units as written (SPEC.md "Limits": "2
 * decimal places" for the default USD; JPY 0, BHD 3). JSON numbers arrive as their source text.
 */
export function limit(
  value: string | number | undefined,
  field: string,
  currency: string,
  problems: ErrorDetail[],
): Units | null {
  if (value === undefined) return null;
  const units =
    typeof value === 'string'
      ? readAmount(value.trim(), currencyExponent(currency) ?? SCALE, currency)
      : 'must be a decimal amount';
  if (typeof units === 'string') {
    problems.push({ field, message: units });
    return null;
  }
  if (units <= 0n) {
    problems.push({ field, message: 'must be a decimal amount greater than 0' });
    return null;
  }
  return units;
}

export function countries(values: string[] | undefined, field: string, problems: ErrorDetail[]): string[] | null {
  if (values === undefined) return null;
  const out: string[] = [];
  values.forEach((v, i) => {
    const a3 = toAlpha3(v);
    if (a3 === null) problems.push({ field: `${field}.${i}`, message: 'is not an ISO 3166-1 alpha-2 or alpha-3 code' });
    else if (!out.includes(a3)) out.push(a3);
  });
  return out;
}

/** Reads and checks the extra limits; each problem is reported as (field, message). */
export function readExtraLimits(
  input: ExtraLimitsInput,
  currency: string,
  problem: (field: string, message: string) => void,
): ExtraLimits {
  const places = currencyExponent(currency) ?? SCALE;
  const money = (field: (typeof EXTRA_AMOUNT_FIELDS)[number]): Units | null => {
    const v = input[field];
    if (v === undefined) return null;
    const units = typeof v === 'string' ? readAmount(v.trim(), places, currency) : 'must be a decimal amount';
    if (typeof units === 'string') problem(field, units);
    else if (units <= 0n) problem(field, 'must be greater than 0');
    else return units;
    return null;
  };
  let alertShare: Units | null = null;
  if (input.budget_alert_share !== undefined) {
    alertShare = parseAmount(input.budget_alert_share);
    if (alertShare === null || alertShare <= 0n || alertShare > 100_000_000n) {
      problem('budget_alert_share', 'must be a share greater than 0 and at most 1 (e.g. 0.8)');
      alertShare = null;
    }
  }
  return {
    weekly: money('max_weekly_amount'),
    yearly: money('max_yearly_amount'),
    total: money('max_total_amount'),
    dailyCount: input.max_daily_count ?? null,
    monthlyCount: input.max_monthly_count ?? null,
    holdExpirySeconds: input.hold_expiry_seconds ?? null,
    alertShare,
  };
}

/** The extra limits as terms of mandate_hash: unset ones are left out, so older hashes are unchanged. */
export function extraTerms(x: ExtraLimits): Record<string, string | number | undefined> {
  return {
    max_weekly_amount: x.weekly === null ? undefined : formatAmount(x.weekly),
    max_yearly_amount: x.yearly === null ? undefined : formatAmount(x.yearly),
    max_total_amount: x.total === null ? undefined : formatAmount(x.total),
    max_daily_count: x.dailyCount ?? undefined,
    max_monthly_count: x.monthlyCount ?? undefined,
    hold_expiry_seconds: x.holdExpirySeconds ?? undefined,
    budget_alert_share: x.alertShare === null ? undefined : formatAmount(x.alertShare, 0),
  };
}

/** Column values for an insert, in the order of EXTRA_COLUMNS. */
export function extraValues(x: ExtraLimits): (string | number | null)[] {
  return [
    x.weekly === null ? null : toDb(x.weekly),
    x.yearly === null ? null : toDb(x.yearly),
    x.total === null ? null : toDb(x.total),
    x.dailyCount,
    x.monthlyCount,
    x.holdExpirySeconds,
    x.alertShare === null ? null : toDb(x.alertShare),
  ];
}

/** The stored columns (as text for NUMERIC) a view reads. */
export type ExtraLimitsRow = Pick<MandateRow, MandateExtraLimitColumn>;

const num = (text: string | null | undefined): number | null => {
  const u = fromDb(text ?? null);
  return u === null ? null : toJsonNumber(u);
};

/** The extra limits of a mandate view (null when unset; defaults are documented, not filled in). */
export function extraView(row: ExtraLimitsRow): Record<string, number | null> {
  return {
    max_weekly_amount: num(row.max_weekly_amount),
    max_yearly_amount: num(row.max_yearly_amount),
    max_total_amount: num(row.max_total_amount),
    max_daily_count: row.max_daily_count ?? null,
    max_monthly_count: row.max_monthly_count ?? null,
    hold_expiry_seconds: row.hold_expiry_seconds ?? null,
    budget_alert_share: num(row.budget_alert_share),
  };
}
