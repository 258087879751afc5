// The conventional peer's decision: the service's mandate gates (docs/decision-engine.md
// "Mandate check") on one mandate row and the spend already recorded for today and this month,
// in the order the service checks them. Pure, so a unit test can hold it to the service's
// answers. The peer has no risk engine (rapid fire, velocity, step-up, intent): the bench
// compares the cost of a durable decision, not the depth of the judgement.
import { parseAmount, type Units } from '../../src/domain/money.js';

/** One ACTIVE mandate of the agent, as the peer's query returns it (amounts as NUMERIC text). */
export interface PeerMandate {
  readonly id: string;
  readonly currency: string;
  readonly maxPerTransaction: string;
  readonly maxDaily: string | null;
  readonly maxMonthly: string | null;
  readonly blockedMccs: readonly string[];
  readonly blockedCountries: readonly string[];
  readonly validFromMs: number;
  readonly validUntilMs: number | null;
  /** Approved spend of today (UTC) and of this month, NUMERIC text, "0" when none. */
  readonly dayAmount: string;
  readonly monthAmount: string;
}

export interface PeerRequest {
  readonly amount: Units;
  readonly currency: string;
  readonly mcc: string | null;
  /** Alpha-3, already normalised. */
  readonly country: string | null;
}

export interface PeerDecision {
  readonly decision: 'APPROVE' | 'DECLINE';
  readonly reasons: readonly string[];
  /** The mandate judged against (null when the agent has none). */
  readonly mandateId: string | null;
}

const units = (text: string): Units => {
  const u = parseAmount(text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text);
  if (u === null) throw new Error(`not an exact amount: ${text}`);
  return u;
};

/**
 * Newest mandate first (the query's order): the first in the request's currency and inside its
 * validity window decides; otherwise the most specific reason, as the service's selectMandate.
 */
export function decidePeer(mandates: readonly PeerMandate[], r: PeerRequest, nowMs: number): PeerDecision {
  if (mandates.length === 0) return { decision: 'DECLINE', reasons: ['no_active_mandate'], mandateId: null };
  let inCurrency: PeerMandate | null = null;
  let m: PeerMandate | null = null;
  for (const x of mandates) {
    if (x.currency !== r.currency) continue;
    inCurrency ??= x;
    if (x.validFromMs <= nowMs && (x.validUntilMs === null || nowMs < x.validUntilMs)) {
      m = x;
      break;
    }
  }
  const decline = (reason: string, id: string | null): PeerDecision => ({
    decision: 'DECLINE',
    reasons: [reason],
    mandateId: id,
  });
  if (m === null) {
    if (inCurrency === null) return decline('currency_mismatch', (mandates[0] as PeerMandate).id);
    const expired = inCurrency.validUntilMs !== null && nowMs >= inCurrency.validUntilMs;
    return decline(expired ? 'mandate_expired' : 'mandate_not_yet_valid', inCurrency.id);
  }
  if (r.amount > units(m.maxPerTransaction)) return decline('per_transaction_limit_exceeded', m.id);
  if (m.maxDaily !== null && units(m.dayAmount) + r.amount > units(m.maxDaily)) {
    return decline('daily_limit_exceeded', m.id);
  }
  if (m.maxMonthly !== null && units(m.monthAmount) + r.amount > units(m.maxMonthly)) {
    return decline('monthly_limit_exceeded', m.id);
  }
  if (r.mcc !== null && m.blockedMccs.includes(r.mcc)) return decline('mcc_blocked', m.id);
  if (r.country !== null && m.blockedCountries.includes(r.country)) return decline('country_blocked', m.id);
  return { decision: 'APPROVE', reasons: [], mandateId: m.id };
}

/** The UTC day and month keys the peer's spend rows are kept under. */
export function spendKeys(nowMs: number): { day: string; month: string } {
  const iso = new Date(nowMs).toISOString();
  return { day: `d${iso.slice(0, 10)}`, month: `m${iso.slice(0, 7)}` };
}
