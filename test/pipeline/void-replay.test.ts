// A voided decision is not replayed (history.ts replayHistory, docs/engine-durability.md "Voids"):
// the agent was answered the safe DECLINE, which records nothing, so an actor reloaded after a
// void learns nothing from what the row records (an approval's amount, merchant, country and
// pace; a STEP_UP awaiting confirmation; a request in a new country refused), while the same rows
// not voided teach all of it.
import { describe, expect, it } from 'vitest';
import { type HistoryRow, replayHistory } from '../../src/decision/history.js';
import { merchantKeyOf } from '../../src/decision/state.js';
import { agent, DAY, T0 } from '../fixtures/decision-core.js';

const HOME = merchantKeyOf(null, 'Corner Grocery');
const LATE = merchantKeyOf(null, 'Late Commit Store');
const MINUTE = 60_000;

function row(i: number, merchant: string, country: string, decision: string, voided = false): HistoryRow {
  return {
    id: `atz_${i}`,
    amount: 1_000_000_000n,
    currency: 'USD',
    mcc: '5411',
    country,
    decision,
    reasonCodes: decision === 'APPROVE' ? ['approved'] : ['amount_outlier'],
    gatesFired: decision === 'STEP_UP' ? ['risk_amount_outlier'] : [],
    merchant,
    sessionId: null,
    trustScore: null,
    atMs: T0 - (20 - i) * MINUTE,
    voided,
  };
}

/** Ten approvals at the agent's grocery, then an APPROVE and a STEP_UP at a store abroad. */
function reloaded(voided: boolean) {
  const rows = Array.from({ length: 10 }, (_, i) => row(i, HOME, 'USA', 'APPROVE'));
  rows.push(row(10, LATE, 'FRA', 'APPROVE', voided), row(11, LATE, 'FRA', 'STEP_UP', voided));
  const s = agent();
  s.stats.approved = 11;
  replayHistory(s, rows, T0);
  return s;
}

describe('a reload does not replay a voided decision', () => {
  it('learns nothing from a voided APPROVE or STEP_UP', () => {
    const s = reloaded(true);
    expect(s.knownMerchants.has(HOME)).toBe(true);
    expect(s.knownMerchants.has(LATE)).toBe(false);
    expect(s.countries.has('FRA')).toBe(false);
    expect(s.novelCountries.filter((c) => c === 'FRA')).toEqual([]);
    expect(s.approvals.countSince(T0 - DAY)).toBe(10);
    expect(s.baselines.get('USD')?.count).toBe(10);
    expect(s.pendingStepUps).toEqual([]);
  });

  it('the same rows not voided: the APPROVE is learned and the STEP_UP awaits confirmation', () => {
    const s = reloaded(false);
    expect(s.knownMerchants.has(LATE)).toBe(true);
    expect(s.countries.has('FRA')).toBe(true);
    expect(s.approvals.countSince(T0 - DAY)).toBe(11);
    expect(s.baselines.get('USD')?.count).toBe(11);
    expect(s.pendingStepUps.map((x) => x.authorizationId)).toEqual(['atz_11']);
  });
});
