// The agent's pace survives a reload: bursts learned as its normal pace from its first approvals
// stay its pace when the state is rebuilt from audit rows that no longer include those first
// approvals (a long-lived agent, reloaded after a failed commit or a database outage).
import { describe, expect, it } from 'vitest';
import { type HistoryRow, replayHistory } from '../../src/decision/history.js';
import { merchantKeyOf } from '../../src/decision/state.js';
import { agent, decide, request, T0 } from '../fixtures/decision-core.js';

const MERCHANT = merchantKeyOf(null, 'Acme Supplies');

/** Audit rows at one merchant at these times (oldest first). */
function rows(times: number[], decision = 'APPROVE', reasonCodes: string[] = ['approved']): HistoryRow[] {
  return times.map((atMs, i) => ({
    id: `atz_${i}`,
    amount: 1_000_000_000n,
    currency: 'USD',
    mcc: '5999',
    country: 'USA',
    decision,
    reasonCodes,
    gatesFired: decision === 'STEP_UP' ? ['velocity_spike'] : [],
    merchant: MERCHANT,
    sessionId: null,
    trustScore: null,
    atMs,
  }));
}

const MINUTE = 60_000;
/** Bursts of three purchases within a second, ten minutes apart, over the 200 rows a load reads. */
const BURSTY = Array.from({ length: 198 }, (_, i) => T0 - (66 - Math.floor(i / 3)) * 10 * MINUTE + (i % 3) * 300);
/** One purchase every ten minutes. */
const STEADY = Array.from({ length: 200 }, (_, i) => T0 - (200 - i) * 10 * MINUTE);

/** A reloaded state: 500 approvals counted by the rollup, the newest `history` replayed. */
function reloaded(history: HistoryRow[]) {
  const s = agent();
  s.stats.approved = 500;
  replayHistory(s, history, T0);
  return s;
}

/** Three purchases at the merchant within a second: a burst. */
function burst(s: ReturnType<typeof agent>): string[][] {
  return [0, 300, 600].map((dt) => decide(s, request({ amount: '10' }), T0 + dt).res.reason_codes);
}

describe('the pace an agent learned survives a reload', () => {
  it('bursts approved in the replayed rows keep bursts its normal pace', () => {
    const s = reloaded(rows(BURSTY));
    expect(s.burstsNormal).toBe(true);
    for (const codes of burst(s)) expect(codes).not.toContain('velocity_spike');
  });

  it('an agent whose replayed rows are a slower pace still has a burst stepped up', () => {
    const s = reloaded(rows(STEADY));
    expect(s.burstsNormal).toBe(false);
    expect(burst(s)[2]).toContain('velocity_spike');
  });

  it('bursts that were stepped up (velocity_spike) do not make bursts its pace', () => {
    // A steady pace, then a burst of which the service stepped the later purchases up.
    const history = [
      ...rows(STEADY.slice(3)),
      ...rows([T0 - MINUTE]),
      ...rows([T0 - MINUTE + 300, T0 - MINUTE + 600], 'STEP_UP', ['velocity_spike']),
    ];
    const s = reloaded(history);
    expect(s.burstsNormal).toBe(false);
  });
});
