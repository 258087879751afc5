// The agent's pace survives a reload: bursts learned as its normal pace from its first approvals
// stay its pace when the state is rebuilt from audit rows that no longer include those first
// approvals (a long-lived agent, reloaded after a failed commit or a database outage).
import { describe, expect, it } from 'vitest';
import { evaluate } from '../../src/decision/core.js';
import { type HistoryRow, replayHistory } from '../../src/decision/history.js';
import { merchantKeyOf } from '../../src/decision/state.js';
import { agent, decide, request, T0 } from '../fixtures/decision-core.js';

const MERCHANT = merchantKeyOf(null, 'Acme Supplies');

/** Audit rows at one merchant at these times (oldest first). */
function rows(
  times: number[],
  decision = 'APPROVE',
  reasonCodes: string[] = ['approved'],
  slowAnswers = false,
): HistoryRow[] {
  return times.map((atMs, i) => ({
    slowAnswers,
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
  replayHistory(s, history, T0, history.length >= 200);
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

/** Bursts judged within one second, as the slow-database drill does. */
const ONE_SECOND = { rapid_fire_window_seconds: 1 };

/** One purchase every 1.5 s, the spacing a client gets that waits for each answer from a slow database. */
const SLOW_PACED = Array.from({ length: 5 }, (_, i) => T0 - 20 * MINUTE + i * 1500);

describe("a pace our slow answers set is not learned as the agent's", () => {
  it('approvals answered while the database was slow do not end the learning: a burst afterwards is its pace', () => {
    const s = agent({ overrides: ONE_SECOND });
    for (const t of SLOW_PACED) {
      const ev = evaluate(s, request({ amount: '10', receivedAtMs: t }), t, undefined, true);
      expect(ev.decision).toBe('APPROVE');
      expect(ev.audit.answers_slow).toBe(true);
    }
    expect(s.stats.approved).toBe(SLOW_PACED.length);
    expect(s.paceSkipped).toBe(SLOW_PACED.length);
    // Answers fast again: the agent's own pace, bursts, is learned, not stepped up.
    for (const codes of burst(s)) expect(codes).not.toContain('velocity_spike');
    expect(s.burstsNormal).toBe(true);
    // And a reload from the rows those decisions wrote learns the same.
    const r = agent({ overrides: ONE_SECOND });
    r.stats.approved = SLOW_PACED.length;
    replayHistory(r, rows(SLOW_PACED, 'APPROVE', ['approved'], true), T0 - 1);
    expect(r.paceSkipped).toBe(SLOW_PACED.length);
    expect(r.burstsNormal).toBe(false);
    for (const codes of burst(r)) expect(codes).not.toContain('velocity_spike');
  });

  it('the same approvals answered in time end the learning: a burst afterwards is stepped up', () => {
    const s = agent({ overrides: ONE_SECOND });
    for (const t of SLOW_PACED)
      expect(decide(s, request({ amount: '10', receivedAtMs: t }), t).ev.decision).toBe('APPROVE');
    expect(s.paceSkipped).toBe(0);
    expect(burst(s)[2]).toContain('velocity_spike');
  });

  it('a database always slow ends the learning all the same: at most 4 x amount_outlier_min_history are skipped', () => {
    const s = agent({ overrides: ONE_SECOND });
    const times = Array.from({ length: 30 }, (_, i) => T0 - 20 * MINUTE + i * 1500);
    for (const t of times) evaluate(s, request({ amount: '10', receivedAtMs: t }), t, undefined, true);
    expect(s.paceSkipped).toBe(20);
    expect(burst(s)[2]).toContain('velocity_spike');
  });

  it('only the learning skips slow answers: once learned, a slow approval changes nothing', () => {
    const s = agent({ overrides: ONE_SECOND });
    for (const t of SLOW_PACED) decide(s, request({ amount: '10', receivedAtMs: t }), t);
    const t = T0 - MINUTE;
    evaluate(s, request({ amount: '10', receivedAtMs: t }), t, undefined, true);
    expect(s.paceSkipped).toBe(0);
    expect(burst(s)[2]).toContain('velocity_spike');
  });
});
