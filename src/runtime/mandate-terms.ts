// The richer terms of a mandate on both planes (docs/mandate-lifecycle.md "Terms"): allowed
// payees and a merchant lock, a minimum amount, an execution window with optional days of the
// week, and recurrence. Read and checked from a create or PATCH body into the one jsonb document
// `mandates.terms` stores (null when none is set, so such mandates cost the decision nothing),
// shown in the mandate views and named by mandate_hash only when set (older hashes hold).
import { currencyExponent } from '../domain/currency.js';
import { formatAmount, fromDb, readAmount, SCALE, toJsonNumber, type Units } from '../domain/money.js';
import type { Frequency, StoredTerms, Weekday } from '../storage/rows/mandates.js';

type Amount = string | number;

const WEEK: readonly Weekday[] = ['MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT', 'SUN'];

/** The terms fields of a create body (runtime: top level; onboarding: min amount inside `limits`). */
export interface TermsInput {
  allowed_payees?: string[];
  merchant_lock?: boolean;
  execution_window?: { not_before?: string; not_after?: string; days_of_week?: Weekday[] };
  recurrence?: { frequency: Frequency; max_occurrences?: number };
}

/** The terms fields a PATCH may carry (null removes; merchant_lock false or null removes the lock). */
export const TERMS_FIELDS = [
  'min_amount_per_transaction',
  'allowed_payees',
  'merchant_lock',
  'execution_window',
  'recurrence',
] as const;

export type TermsField = (typeof TERMS_FIELDS)[number];

/**
 * Reads and checks the terms: the minimum amount (in the currency's minor units, greater than 0
 * and at most `perTx`), the payees (trimmed, unique, sorted), the window (not_before before
 * not_after, not_after in the future; days in week order). Problems go to `problem`; returns the
 * stored document, or null when no term is set.
 */
export function readTerms(
  input: TermsInput,
  minAmount: Amount | undefined,
  currency: string,
  perTx: Units | null,
  nowMs: number,
  problem: (field: string, message: string) => void,
  minField = 'min_amount_per_transaction',
): StoredTerms | null {
  const out: StoredTerms = {};
  if (minAmount !== undefined) {
    const units =
      typeof minAmount === 'string'
        ? readAmount(minAmount.trim(), currencyExponent(currency) ?? SCALE, currency)
        : 'must be a decimal amount';
    if (typeof units === 'string') problem(minField, units);
    else if (units <= 0n) problem(minField, 'must be greater than 0');
    else if (perTx !== null && units > perTx) problem(minField, 'must be at most max_amount_per_transaction');
    else out.min_amount_per_transaction = formatAmount(units);
  }
  if (input.allowed_payees !== undefined) {
    const payees = [...new Set(input.allowed_payees.map((p) => p.trim()))].sort();
    if (payees.some((p) => p.length === 0)) problem('allowed_payees', 'must not hold an empty merchant_id');
    else out.allowed_payees = payees;
  }
  if (input.merchant_lock === true) out.merchant_lock = true;
  const w = input.execution_window;
  if (w !== undefined) {
    const window: NonNullable<StoredTerms['execution_window']> = {};
    const nb = w.not_before === undefined ? null : Date.parse(w.not_before);
    const na = w.not_after === undefined ? null : Date.parse(w.not_after);
    if (nb !== null) window.not_before = new Date(nb).toISOString();
    if (na !== null) {
      if (!(na > nowMs)) problem('execution_window.not_after', 'must be in the future');
      else if (nb !== null && !(na > nb)) problem('execution_window.not_after', 'must be after not_before');
      window.not_after = new Date(na).toISOString();
    }
    if (w.days_of_week !== undefined) window.days_of_week = WEEK.filter((d) => w.days_of_week?.includes(d));
    out.execution_window = window;
  }
  const r = input.recurrence;
  if (r !== undefined) {
    out.recurrence =
      r.max_occurrences === undefined
        ? { frequency: r.frequency }
        : { frequency: r.frequency, max_occurrences: r.max_occurrences };
  }
  return Object.keys(out).length === 0 ? null : out;
}

/** The terms of a mandate view: every field, null (false for the lock) when unset. */
export function termsView(t: StoredTerms | null | undefined, withMin = true): Record<string, unknown> {
  const min = fromDb(t?.min_amount_per_transaction ?? null);
  const view: Record<string, unknown> = {
    allowed_payees: t?.allowed_payees ?? null,
    merchant_lock: t?.merchant_lock === true,
    execution_window: t?.execution_window ?? null,
    recurrence: t?.recurrence ?? null,
  };
  if (withMin) view.min_amount_per_transaction = min === null ? null : toJsonNumber(min);
  return view;
}

/**
 * The terms as amended by a PATCH body: each field given replaces the stored one (null removes
 * it), then the result is checked as at creation against the amended max_amount_per_transaction.
 */
export function amendTerms(
  stored: StoredTerms | null,
  body: Partial<Record<TermsField, unknown>>,
  currency: string,
  perTx: Units | null,
  nowMs: number,
  problem: (field: string, message: string) => void,
): StoredTerms | null {
  const min = fromDb(stored?.min_amount_per_transaction ?? null);
  const merged: TermsInput & { min?: Amount } = {
    ...(stored?.allowed_payees === undefined ? {} : { allowed_payees: stored.allowed_payees }),
    ...(stored?.merchant_lock === true ? { merchant_lock: true } : {}),
    ...(stored?.execution_window === undefined ? {} : { execution_window: stored.execution_window }),
    ...(stored?.recurrence === undefined ? {} : { recurrence: stored.recurrence }),
    ...(min === null ? {} : { min: formatAmount(min, 0) }),
  };
  const m = merged as Record<string, unknown>;
  for (const f of TERMS_FIELDS) {
    const v = body[f];
    if (v === undefined) continue;
    const key = f === 'min_amount_per_transaction' ? 'min' : f;
    if (v === null || v === false) delete m[key];
    else m[key] = v;
  }
  // A window already stored may have passed its not_after: only a window the PATCH gives is held to the future.
  const keepWindow = body.execution_window === undefined ? merged.execution_window : undefined;
  if (keepWindow !== undefined) delete merged.execution_window;
  let next = readTerms(merged, merged.min, currency, perTx, nowMs, problem);
  if (keepWindow !== undefined) next = { ...(next ?? {}), execution_window: keepWindow };
  // An imported AP2 mandate stays one: it is spent only by presentation, whatever is amended.
  if (stored?.presentation_only === true) next = { ...(next ?? {}), presentation_only: true };
  return next;
}
