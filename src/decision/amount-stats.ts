// Statistics of the agent's approved amounts: the robust median and spread of a baseline and
// whether an amount is large for the agent (risk.ts scores the same at decision time).
import type { Units } from '../domain/money.js';
import type { AgentState } from './agent-state.js';
import { type AmountBaseline, BASELINE_SIZE } from './rings.js';

/**
 * Key in `baselines` of the amounts as shares of their mandate's max_amount_per_transaction,
 * all currencies together: the baseline of a currency the agent has too little history in.
 */
export const SHARE_BASELINE = '*share';

/** Floor of the robust spread (log units): identical prices (subscriptions) have MAD 0. */
export const MIN_LOG_SPREAD = 0.25;
/** Prior spread of log amounts (about x2.2 either way) and its weight in amounts. */
export const PRIOR_LOG_SPREAD = 0.8;
export const PRIOR_WEIGHT = 5;
/** Robust z above which an amount (also above amount_outlier_multiplier x the median) is large. */
export const LARGE_Z = 2.2;

// Scratch for the median/MAD of a baseline (one decision at a time per thread).
const SCRATCH = new Float64Array(BASELINE_SIZE);

/** An amount as the known-merchant map keeps it: round(1000 x ln amount), a small integer. */
export function merchantLogAmount(amount: Units): number {
  return Math.round(1000 * Math.log(Math.max(Number(amount) / 1e8, 1e-8)));
}

/** Median and MAD of a baseline's log amounts (MAD x 1.4826 estimates a standard deviation). */
export function medianMad(b: AmountBaseline): { median: number; spread: number } {
  const n = b.count;
  const xs = SCRATCH.subarray(0, n);
  xs.set(b.logs.subarray(0, n));
  xs.sort();
  const median = n % 2 === 1 ? (xs[(n - 1) >> 1] as number) : ((xs[n / 2 - 1] as number) + (xs[n / 2] as number)) / 2;
  for (let i = 0; i < n; i++) xs[i] = Math.abs((xs[i] as number) - median);
  xs.sort();
  const mad = n % 2 === 1 ? (xs[(n - 1) >> 1] as number) : ((xs[n / 2 - 1] as number) + (xs[n / 2] as number)) / 2;
  // A few amounts give a noisy MAD: shrink towards PRIOR_LOG_SPREAD (weight of PRIOR_WEIGHT amounts).
  const s = 1.4826 * mad;
  const spread = Math.sqrt((n * s * s + PRIOR_WEIGHT * PRIOR_LOG_SPREAD * PRIOR_LOG_SPREAD) / (n + PRIOR_WEIGHT));
  return { median, spread: Math.max(MIN_LOG_SPREAD, spread) };
}

/**
 * Whether `amount` is large for the agent: above amount_outlier_multiplier x its median approved
 * amount in `currency` and above LARGE_Z robust spreads (false while fewer than
 * amount_outlier_min_history amounts were approved). risk.ts judges the same at decision time.
 */
export function isLargeAmount(state: AgentState, currency: string, amount: Units): boolean {
  const b = state.baselines.get(currency);
  if (b === undefined || b.count < state.thresholds.amount_outlier_min_history) return false;
  const { median, spread } = medianMad(b);
  const excess = Math.log(Math.max(Number(amount) / 1e8, 1e-8)) - median;
  return (
    excess > Math.log(state.thresholds.amount_outlier_multiplier) &&
    Math.round((excess / spread) * 10_000) / 10_000 > LARGE_Z
  );
}
