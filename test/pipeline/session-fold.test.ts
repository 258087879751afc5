// The session an agent's state holds is the same whether it was built live, decision by
// decision, or rebuilt from the audit rows (a reload after an eviction, a failed commit, a
// restart or a shard moving): here the merchant-category groups of its approved purchases,
// which the replay used to leave empty (a reloaded session then judged its next purchase
// against no categories at all).
import { describe, expect, it } from 'vitest';
import { type HistoryRow, replayHistory } from '../../src/decision/history.js';
import { merchantKeyOf } from '../../src/decision/state.js';
import { parseAmount } from '../../src/domain/money.js';
import { agent, decide, request, T0 } from '../fixtures/decision-core.js';

/** The audit row of a live decision, as a reload reads it back. */
function rowOf(req: ReturnType<typeof request>, res: Record<string, unknown>, atMs: number): HistoryRow {
  return {
    id: res.authorization_id as string,
    amount: parseAmount(req.amount) ?? 0n,
    currency: req.currency,
    mcc: req.mcc,
    country: req.country,
    decision: res.decision as string,
    reasonCodes: res.reason_codes as string[],
    gatesFired: res.gates_fired as string[],
    merchant: merchantKeyOf(req.merchantId, req.merchantName),
    sessionId: req.sessionId,
    trustScore: (res.trust_score as number | null) ?? null,
    atMs,
  };
}

describe('a session rebuilt from the audit rows', () => {
  it('keeps the merchant-category groups of its approved purchases', () => {
    const live = agent();
    const rows: HistoryRow[] = [];
    const purchases = [
      { mcc: '5411', merchantName: 'Corner Grocer' },
      { mcc: '5812', merchantName: 'Noodle Bar' },
      { mcc: '5999', merchantName: 'Acme Supplies' },
    ];
    purchases.forEach((p, i) => {
      const req = request({ sessionId: 'sess_weekly', amount: '12', ...p });
      const at = T0 + i * 60_000;
      const { res } = decide(live, req, at);
      expect(res.decision).toBe('APPROVE');
      rows.push(rowOf(req, res, at));
    });
    const liveSession = live.sessions.get('sess_weekly');
    expect(liveSession?.groups).not.toBe(0);

    const reloaded = agent();
    reloaded.stats.approved = rows.length;
    replayHistory(reloaded, rows, T0 + 10 * 60_000);
    const replayed = reloaded.sessions.get('sess_weekly');
    expect(replayed?.groups).toBe(liveSession?.groups);
    expect(replayed?.merchants).toEqual(liveSession?.merchants);
    expect(replayed?.consecutiveDenials).toBe(liveSession?.consecutiveDenials);
  });
});
