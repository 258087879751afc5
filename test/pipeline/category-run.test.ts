// A run in a new category (src/decision/recent.ts newCategoryRun, risk.ts): an established
// agent that begins paying in a category group and keeps making small charges there within the
// week is stepped up from the third (new_category_run), as a drip to a merchant the attacker
// controls looks; the agent's own categories, larger amounts, a burst, a run the Principal
// confirmed and the categories of a new agent's first purchases are not.
import { describe, expect, it } from 'vitest';
import type { AgentState } from '../../src/decision/agent-state.js';
import { evaluate } from '../../src/decision/core.js';
import { replayHistory } from '../../src/decision/history.js';
import { agent, decide, request, T0 } from '../fixtures/decision-core.js';

const HOUR = 3_600_000;

/** Ten groceries of 40-60 over ten days before T0: the agent's pace and amounts are learned. */
function established(): AgentState {
  const s = agent();
  for (let i = 0; i < 10; i++) {
    const at = T0 - (10 - i) * 24 * HOUR;
    const amount = String(40 + (i % 3) * 10);
    expect(
      decide(s, request({ merchantName: 'Corner Grocer', mcc: '5411', amount, receivedAtMs: at }), at).res.decision,
    ).toBe('APPROVE');
  }
  return s;
}

/** Small charges to a digital-goods merchant (MCC 5817), a few hours apart from T0 on. */
function drip(s: AgentState, n: number, amount = '4.99', from = T0): { decision: string; reason_codes: string[] }[] {
  const out = [];
  for (let i = 0; i < n; i++) {
    const at = from + i * 5 * HOUR;
    out.push(decide(s, request({ merchantName: 'Pixel Credits', mcc: '5817', amount, receivedAtMs: at }), at).res);
  }
  return out;
}

describe('a run of small charges in a category new to the agent', () => {
  it('steps up the third and later, new_category_run at gate risk_score', () => {
    const s = established();
    const res = drip(s, 5);
    expect(res.map((r) => r.decision)).toEqual(['APPROVE', 'APPROVE', 'STEP_UP', 'STEP_UP', 'STEP_UP']);
    expect(res[2]?.reason_codes).toContain('new_category_run');
  });

  it('does not judge a category the agent paid from its first purchases, nor larger amounts', () => {
    const s = established();
    const groceries = [];
    for (let i = 0; i < 4; i++) {
      const at = T0 + i * 5 * HOUR;
      groceries.push(
        decide(s, request({ merchantName: 'Corner Grocer', mcc: '5411', amount: '12', receivedAtMs: at }), at).res
          .decision,
      );
    }
    expect(groceries).toEqual(['APPROVE', 'APPROVE', 'APPROVE', 'APPROVE']);
    // Above half the agent's median (50): a new kind of purchase, not a drip.
    expect(drip(established(), 4, '30').map((r) => r.reason_codes.includes('new_category_run'))).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });

  it('a basket, items minutes apart, is not a run (the pace rule judges it)', () => {
    const s = established();
    const out = [];
    for (let i = 0; i < 4; i++) {
      const at = T0 + i * 2 * 60_000;
      out.push(
        decide(s, request({ merchantName: 'Pixel Credits', mcc: '5817', amount: '4.99', receivedAtMs: at }), at).res,
      );
    }
    expect(out.filter((r) => r.reason_codes.includes('new_category_run'))).toEqual([]);
  });

  it('a new agent: the categories of its first purchases are its own', () => {
    const s = agent();
    const res = drip(s, 6);
    expect(res.filter((r) => r.reason_codes.includes('new_category_run'))).toEqual([]);
  });

  it("a run the Principal confirmed becomes the agent's category", () => {
    const s = established();
    const [, , third] = drip(s, 3);
    expect(third?.decision).toBe('STEP_UP');
    const at = T0 + 2 * 5 * HOUR + 60_000;
    const confirmed = evaluate(
      s,
      request({ merchantName: 'Pixel Credits', mcc: '5817', amount: '4.99', stepUpConfirmed: true, receivedAtMs: at }),
      at,
    );
    expect(confirmed.decision).toBe('APPROVE');
    expect(drip(s, 2, '4.99', at + HOUR).map((r) => r.decision)).toEqual(['APPROVE', 'APPROVE']);
  });

  it("a week after the first charge there, the category is the agent's", () => {
    const s = established();
    drip(s, 2);
    expect(drip(s, 2, '4.99', T0 + 8 * 24 * HOUR).map((r) => r.decision)).toEqual(['APPROVE', 'APPROVE']);
  });

  it('a reload of an agent with more rows than it reads takes every category it shows as its own', () => {
    const s = agent();
    s.stats.approved = 500;
    replayHistory(
      s,
      [0, 1].map((i) => ({
        id: `atz_${i}`,
        amount: 499_000_000n,
        currency: 'USD',
        mcc: '5817',
        decision: 'APPROVE',
        reasonCodes: ['approved'],
        gatesFired: [],
        merchant: 'pixel credits',
        sessionId: null,
        trustScore: null,
        atMs: T0 - (2 - i) * HOUR,
      })),
      T0,
      true,
    );
    expect(s.groupFirstMs.every((f) => Number.isNaN(f) || f === Number.NEGATIVE_INFINITY)).toBe(true);
  });
});
