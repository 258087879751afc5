// What the agent's approvals and declines teach its state: the amounts, countries, merchant
// categories and merchants it is approved at, and the declines that point to a compromise
// (flagged merchants, sessions, the mandate_compliance dimension).
import type { Units } from '../domain/money.js';
import { type AgentState, MAX_COUNTRIES, MAX_FLAGGED_MERCHANTS, MAX_KNOWN_MERCHANTS } from './agent-state.js';
import { merchantLogAmount, SHARE_BASELINE } from './amount-stats.js';
import { spendableBy } from './caps.js';
import { nameWords } from './lookalike.js';
import { AmountBaseline } from './rings.js';
import { groupsOfMcc } from './taxonomy.js';

/** Gates whose DECLINE counts against the mandate_compliance dimension. */
export const MANDATE_GATES: ReadonlySet<string> = new Set([
  'no_active_mandate',
  'mandate_expired',
  'currency_mismatch',
  'mandate_exceeded',
  'mcc_blocked',
  'country_blocked',
  'crypto_blocked',
  'mandate_terms',
]);

/**
 * DECLINE reasons that do NOT point to a compromised agent: pacing (rapid fire, daily and
 * monthly caps), configuration (no mandate, expired, currency, rail) and the consequences of
 * earlier decisions. Every other DECLINE reason (instructions in the intent, drift,
 * misalignment, a hard risk score, a CRITICAL trust score, amounts over the per-transaction
 * limit, categories, countries and crypto the mandate forbids) does.
 */
export const NOT_COMPROMISE_REASONS: ReadonlySet<string> = new Set([
  'risk_rapid_fire',
  'daily_limit_exceeded',
  'monthly_limit_exceeded',
  'weekly_limit_exceeded',
  'yearly_limit_exceeded',
  'total_limit_exceeded',
  'daily_count_exceeded',
  'monthly_count_exceeded',
  'amount_below_minimum',
  'outside_execution_window',
  'day_of_week_not_allowed',
  'recurrence_max_occurrences_reached',
  'recurrence_period_used',
  'principal_budget_exhausted',
  'no_active_mandate',
  'rail_not_permitted',
  'mandate_not_yet_valid',
  'mandate_expired',
  'currency_mismatch',
  'agent_inactive',
  'session_terminated',
  'system_unavailable',
  'step_up_confirmation_ignored',
]);

/** Whether a DECLINE with these reason codes points to compromise (sessions, flagged merchants). */
export function pointsToCompromise(reasons: readonly string[]): boolean {
  for (const r of reasons) if (!NOT_COMPROMISE_REASONS.has(r)) return true;
  return false;
}

/**
 * The per-transaction limit of the agent's first mandate in `currency` that an ordinary request
 * may be decided under (null: none): a presentation-only (AP2) mandate is no ordinary cap.
 */
export function capOf(state: AgentState, currency: string): Units | null {
  for (const m of state.mandates) if (m.currency === currency && spendableBy(m, undefined)) return m.perTransaction;
  return null;
}

/** Learns from an APPROVE: amount baseline, countries, merchant categories, known merchants and their names. */
export function learnApproval(
  state: AgentState,
  amount: Units,
  currency: string,
  mcc: string | null,
  country: string | null,
  merchant: string,
  merchantName: string | null,
  nowMs: number,
  cap: Units | null = null,
): void {
  let b = state.baselines.get(currency);
  if (b === undefined) {
    b = new AmountBaseline();
    state.baselines.set(currency, b);
  }
  b.push(Number(amount) / 1e8);
  if (cap !== null && cap > 0n) {
    let shares = state.baselines.get(SHARE_BASELINE);
    if (shares === undefined) {
      shares = new AmountBaseline();
      state.baselines.set(SHARE_BASELINE, shares);
    }
    shares.push(Number(amount) / Number(cap));
  }
  state.groupsSeen |= groupsOfMcc(mcc);
  if (country !== null) {
    const c = state.countries.get(country);
    if (c !== undefined) c.approvals++;
    else if (state.countries.size < MAX_COUNTRIES) state.countries.set(country, { approvals: 1, firstMs: nowMs });
  }
  if (merchant !== '' && state.knownMerchants.has(merchant)) {
    state.knownMerchants.set(merchant, merchantLogAmount(amount));
  } else if (merchant !== '' && state.knownMerchants.size < MAX_KNOWN_MERCHANTS) {
    state.knownMerchants.set(merchant, merchantLogAmount(amount));
    state.knownChars += merchant.length;
    // Its name, once, with the merchant (not on every approval).
    const words = nameWords(merchantName);
    const key = words.join(' ');
    if (key !== '' && !state.knownNames.has(key)) {
      state.knownNames.set(key, words);
      state.knownChars += 2 * key.length;
    }
  }
}

/** Counts one more decline of the agent at `merchant` (at most MAX_FLAGGED_MERCHANTS merchants). */
export function addMerchantDecline(state: AgentState, merchant: string): void {
  const n = state.merchantDeclines.get(merchant);
  if (n !== undefined) state.merchantDeclines.set(merchant, n + 1);
  else if (state.merchantDeclines.size < MAX_FLAGGED_MERCHANTS) {
    state.merchantDeclines.set(merchant, 1);
    state.merchantChars += merchant.length;
  }
}
