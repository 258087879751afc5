import { describe, expect, it } from 'vitest';
import type { AgentState } from '../../src/decision/agent-state.js';
import { agent, decide, eventTypes, mandate, request, T0 } from '../fixtures/decision-core.js';

const MIN = 60_000;

/** An agent with five approvals of 10 USD: 60 USD is then an amount outlier (STEP_UP). */
function withHistory(s: AgentState): AgentState {
  for (let i = 0; i < 5; i++) decide(s, request({ amount: '10' }), T0 + i * MIN);
  return s;
}

describe('STEP_UP and step_up_confirmed', () => {
  it('round trip: STEP_UP, then the same request confirmed is APPROVED once', () => {
    const s = withHistory(agent({ overrides: { amount_outlier_multiplier: 2 } }));
    const first = decide(s, request({ amount: '60' }), T0 + 10 * MIN);
    expect(first.res.decision).toBe('STEP_UP');
    const created = first.ev.events.find((e) => e.eventType === 'step_up.created');
    expect(created?.data).toMatchObject({
      agent_id: 'agt_test',
      authorization_id: first.res.authorization_id,
      amount: '60',
      currency: 'USD',
      merchant: 'Acme Supplies',
      gates_fired: ['risk_amount_outlier'],
      expires_at: new Date(T0 + 25 * MIN).toISOString(),
    });

    const confirmed = decide(s, request({ amount: '60', stepUpConfirmed: true }), T0 + 12 * MIN);
    expect(confirmed.res).toMatchObject({ decision: 'APPROVE', reason_codes: ['step_up_confirmed'], gates_fired: [] });
    expect(eventTypes(confirmed.ev)).not.toContain('gate.fired');

    // The confirmation is used up: a second confirmed 60 (still over 2x the mean) is a STEP_UP again.
    const again = decide(s, request({ amount: '60', stepUpConfirmed: true }), T0 + 13 * MIN).res;
    expect(again.decision).toBe('STEP_UP');
    expect(again.reason_codes).toContain('step_up_confirmation_ignored');
  });

  it('ignores a confirmation for another amount or merchant', () => {
    const s = withHistory(agent({ overrides: { amount_outlier_multiplier: 2 } }));
    expect(decide(s, request({ amount: '60' }), T0 + 10 * MIN).res.decision).toBe('STEP_UP');
    expect(decide(s, request({ amount: '61', stepUpConfirmed: true }), T0 + 11 * MIN).res.decision).toBe('STEP_UP');
    expect(
      decide(s, request({ amount: '60', merchantName: 'Other', stepUpConfirmed: true }), T0 + 12 * MIN).res.decision,
    ).toBe('STEP_UP');
  });

  it('ignores a confirmation after the step-up window (15 minutes by default)', () => {
    const s = withHistory(agent({ overrides: { amount_outlier_multiplier: 2 } }));
    expect(decide(s, request({ amount: '60' }), T0 + 10 * MIN).res.decision).toBe('STEP_UP');
    const late = decide(s, request({ amount: '60', stepUpConfirmed: true }), T0 + 26 * MIN).res;
    expect(late.decision).toBe('STEP_UP');
  });

  it('a confirmation without any earlier STEP_UP changes nothing', () => {
    const s = agent();
    expect(decide(s, request({ stepUpConfirmed: true })).res.reason_codes).toEqual(['approved']);
  });

  it('mandate gates still apply to a confirmed re-submission', () => {
    const s = withHistory(
      agent({ mandates: [mandate({ daily: '100' })], overrides: { amount_outlier_multiplier: 2 } }),
    );
    expect(decide(s, request({ amount: '45' }), T0 + 10 * MIN).res.decision).toBe('STEP_UP');
    expect(decide(s, request({ amount: '10', merchantName: 'Other' }), T0 + 11 * MIN).res.decision).toBe('APPROVE');
    const res = decide(s, request({ amount: '45', stepUpConfirmed: true }), T0 + 12 * MIN).res;
    expect(res).toMatchObject({ decision: 'DECLINE', reason_codes: ['daily_limit_exceeded'] });
  });
});
