import { describe, expect, it } from 'vitest';
import { agent, decide, mandate, request, T0 } from '../fixtures/decision-core.js';

describe('risk gates', () => {
  it('declines the request over rapid_fire_max_count within the window (risk_rapid_fire)', () => {
    const s = agent();
    for (let i = 0; i < 20; i++) {
      expect(decide(s, request({ amount: '1' }), T0 + i * 100).res.decision).toBe('APPROVE');
    }
    const { res, ev } = decide(s, request({ amount: '1' }), T0 + 2000);
    expect(res.decision).toBe('DECLINE');
    expect(res.gates_fired).toEqual(['risk_rapid_fire']);
    expect(res.reason_codes).toEqual(['risk_rapid_fire']);
    expect((res.risk_assessment as { reason_codes: string[] }).reason_codes).toContain('rapid_fire');
    expect(ev.events.find((e) => e.eventType === 'gate.fired')?.data.gate).toBe('risk_rapid_fire');
    // Once the window has passed, requests are accepted again.
    expect(decide(s, request({ amount: '1' }), T0 + 12_100).res.decision).toBe('APPROVE');
  });

  it('steps up on a spending-velocity spike (risk_velocity) and not below it', () => {
    const s = agent();
    for (let i = 0; i < 30; i++) {
      const res = decide(s, request({ amount: '1' }), T0 + i * 60_000).res;
      expect(res.decision).toBe('APPROVE');
      expect((res.risk_assessment as { velocity_indicator: boolean }).velocity_indicator).toBe(false);
    }
    const res = decide(s, request({ amount: '1' }), T0 + 30 * 60_000).res;
    expect(res.decision).toBe('STEP_UP');
    expect(res.gates_fired).toEqual(['risk_velocity']);
    expect(res.reason_codes).toEqual(['velocity_spike']);
    expect((res.risk_assessment as { velocity_indicator: boolean }).velocity_indicator).toBe(true);
  });

  it('steps up on an amount outlier against the agent history (risk_amount_outlier)', () => {
    const s = agent();
    // No history: a large first amount is not judged.
    for (let i = 0; i < 5; i++)
      expect(decide(s, request({ amount: '10' }), T0 + i * 60_000).res.decision).toBe('APPROVE');
    // The default rule: above both 5x the median and OUTLIER_Z robust spreads of the log amounts.
    expect(decide(s, request({ amount: '60' }), T0 + 9 * 60_000).res.decision).toBe('APPROVE');
    const out = decide(s, request({ amount: '100' }), T0 + 10 * 60_000);
    expect(out.res.decision).toBe('STEP_UP');
    expect(out.res.gates_fired).toEqual(['risk_amount_outlier']);
    expect(out.ev.events.map((e) => e.eventType)).toEqual(['gate.fired', 'step_up.created']);
    // 5x the median is not an outlier once the Principal confirmed the STEP_UP ...
    const confirmed = decide(s, { ...request({ amount: '100' }), stepUpConfirmed: true }, T0 + 10.5 * 60_000);
    expect(confirmed.res.decision).toBe('APPROVE');
    expect(decide(s, request({ amount: '50' }), T0 + 11 * 60_000).res.decision).toBe('APPROVE');
    // ... but it is while an amount_outlier STEP_UP stays unconfirmed (the agent keeps pushing).
    const refused = agent();
    for (let i = 0; i < 5; i++) decide(refused, request({ amount: '10' }), T0 + i * 60_000);
    expect(decide(refused, request({ amount: '100' }), T0 + 10 * 60_000).res.decision).toBe('STEP_UP');
    expect(decide(refused, request({ amount: '50' }), T0 + 11 * 60_000).res.gates_fired).toEqual([
      'risk_amount_outlier',
    ]);
    // A Principal's own amount_outlier_multiplier is applied as set.
    const strict = agent({ overrides: { amount_outlier_multiplier: 2 } });
    for (let i = 0; i < 5; i++) decide(strict, request({ amount: '10' }), T0 + i * 60_000);
    expect(decide(strict, request({ amount: '21' }), T0 + 10 * 60_000).res.gates_fired).toEqual([
      'risk_amount_outlier',
    ]);
  });

  it('flags a merchant after repeated declines and steps up with a high-risk MCC (risk_score)', () => {
    const s = agent({ mandates: [mandate({ blockedMccs: ['5813'] })] });
    for (let i = 0; i < 3; i++) {
      expect(decide(s, request({ merchantName: 'Shady Bar', mcc: '5813' }), T0 + i * 1000).res.decision).toBe(
        'DECLINE',
      );
    }
    const { res } = decide(
      s,
      request({ merchantName: 'Shady Bar', mcc: '7995', intentType: 'casino visit' }),
      T0 + 3000,
    );
    const ra = res.risk_assessment as { reason_codes: string[]; score: number; highest_severity: string };
    expect(ra.reason_codes).toEqual(['merchant_flagged', 'merchant_high_risk_mcc']);
    expect(res.risk_score).toBeGreaterThanOrEqual(0.6);
    expect(res.decision).toBe('STEP_UP');
    expect(res.gates_fired).toEqual(['risk_score']);
    expect(res.reason_codes).toEqual(['risk_score_elevated']);
    expect(ra.highest_severity).toBe('high');
    // Another merchant of this agent is not affected.
    expect(decide(s, request({ merchantName: 'Corner Shop', mcc: '5411' }), T0 + 4000).res.decision).toBe('APPROVE');
  });

  it('a lower risk_score_hard_decline threshold turns the same request into a DECLINE', () => {
    const s = agent({
      mandates: [mandate({ blockedMccs: ['5813'] })],
      overrides: { risk_score_hard_decline: 0.5, authorize_step_up_threshold: 0.4 },
    });
    for (let i = 0; i < 3; i++) decide(s, request({ merchantName: 'Shady Bar', mcc: '5813' }), T0 + i * 1000);
    const { res } = decide(
      s,
      request({ merchantName: 'Shady Bar', mcc: '7995', intentType: 'casino visit' }),
      T0 + 3000,
    );
    expect(res.decision).toBe('DECLINE');
    expect(res.reason_codes).toEqual(['risk_score_too_high']);
    expect((res.risk_assessment as { condition_code: string }).condition_code).toBe('CRITICAL');
  });

  it('keeps the risk score low and gate-free for an ordinary request', () => {
    const { res } = decide(agent(), request());
    expect(res.risk_score).toBeLessThan(0.1);
    expect(res.risk_assessment).toEqual({
      score: res.risk_score,
      reason_codes: [],
      condition_code: 'NORMAL',
      velocity_indicator: false,
      highest_severity: 'none',
    });
  });
});
