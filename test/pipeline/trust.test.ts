import { describe, expect, it } from 'vitest';
import { metricsFor, promotionCriteria } from '../../src/decision/model/promotion.js';
import { THRESHOLD_DEFAULTS } from '../../src/decision/model/thresholds.js';
import { kyaScore } from '../../src/decision/trust.js';
import { agent, DAY, decide, eventTypes, request, T0 } from '../fixtures/decision-core.js';

// Narrow zones so that the confidence of the intent alone moves the score between them:
// an ordinary request scores 0.955 (AMBER here), confidence 0.8 scores 0.939 (RED), 0 scores 0.875.
const NARROW = { cts_green_threshold: 0.99, cts_amber_threshold: 0.95, cts_red_threshold: 0.9 };

describe('cognitive trust', () => {
  it('scores an ordinary request GREEN with no cognitive limit', () => {
    const { res } = decide(agent(), request());
    expect(res.trust_score).toBeGreaterThanOrEqual(0.75);
    expect(res).toMatchObject({ cognitive_limit_active: false, cognitive_limit_multiplier: 1, effective_limit: 1000 });
  });

  it('AMBER applies the multiplier to the limit and steps up above the effective limit', () => {
    const s = agent({ overrides: NARROW });
    const ok = decide(s, request({ amount: '10' })).res;
    expect(ok).toMatchObject({
      decision: 'APPROVE',
      cognitive_limit_active: true,
      cognitive_limit_multiplier: 0.75,
      effective_limit: 750,
    });
    const over = decide(s, request({ amount: '800' }), T0 + 60_000).res;
    expect(over.decision).toBe('STEP_UP');
    expect(over.gates_fired).toEqual(['cognitive_decline']);
    expect(over.reason_codes).toEqual(['cognitive_limit_exceeded']);
  });

  it('RED steps up and emits cts.red once on the zone change', () => {
    const s = agent({ overrides: NARROW });
    const first = decide(s, request({ confidence: 0.8 }));
    expect(first.res.decision).toBe('STEP_UP');
    expect(first.res.reason_codes).toEqual(['cts_red']);
    expect(first.res.effective_limit).toBe(500);
    const red = first.ev.events.find((e) => e.eventType === 'cts.red');
    expect(red?.data).toMatchObject({
      agent_id: 'agt_test',
      previous_zone: 'GREEN',
      current_zone: 'RED',
      cognitive_limit_multiplier: 0.5,
    });
    expect(Object.keys(red?.data.dimensions as object).sort()).toEqual([
      'behavioral_consistency',
      'context_coherence',
      'mandate_compliance',
      'reasoning_quality',
      'temporal_stability',
    ]);
    const second = decide(s, request({ confidence: 0.8, amount: '11' }), T0 + 60_000);
    expect(second.res.decision).toBe('STEP_UP');
    expect(eventTypes(second.ev)).not.toContain('cts.red');
  });

  it('RED declines above the effective limit', () => {
    const s = agent({ overrides: NARROW });
    const res = decide(s, request({ confidence: 0.8, amount: '600' })).res;
    expect(res).toMatchObject({
      decision: 'DECLINE',
      reason_codes: ['cognitive_limit_exceeded'],
      gates_fired: ['cognitive_decline'],
    });
  });

  it('CRITICAL declines and emits cts.critical', () => {
    const s = agent({ overrides: NARROW });
    const { res, ev } = decide(s, request({ confidence: 0 }));
    expect(res).toMatchObject({
      decision: 'DECLINE',
      reason_codes: ['cts_critical'],
      cognitive_limit_multiplier: 0,
      effective_limit: 0,
    });
    expect(eventTypes(ev)).toEqual(['cts.critical', 'gate.fired', 'authorization.decline']);
    expect(ev.events[0]?.data).toMatchObject({ previous_zone: 'GREEN', current_zone: 'CRITICAL' });
  });

  it('mandate declines lower mandate_compliance and with it the trust score', () => {
    const s = agent();
    const before = decide(s, request({ amount: '1' })).res.trust_score as number;
    for (let i = 0; i < 5; i++) decide(s, request({ amount: '5000' }), T0 + (i + 1) * 60_000);
    const after = decide(s, request({ amount: '1' }), T0 + 10 * 60_000).res.trust_score as number;
    expect(after).toBeLessThan(before - 0.05);
  });
});

describe('KYA score and trust promotion', () => {
  it('scores KYA on the first decision and reports it as an agent update', () => {
    const s = agent();
    const { res, ev } = decide(s, request());
    expect(typeof res.kya_score).toBe('number');
    expect(ev.agentUpdate?.kya_score).toBe((res.kya_score as number).toFixed(2));
    expect(res.kya_score).toBe(kyaScore(1, 0, 30 * 24, THRESHOLD_DEFAULTS));
  });

  it('promotes REGISTERED -> VERIFIED -> TRUSTED on successful transactions and age', () => {
    const s = agent({
      overrides: {
        verified_min_successful_txns: 3,
        verified_min_age_hours: 0,
        trusted_min_successful_txns: 5,
        trusted_min_age_hours: 24,
      },
      createdAtMs: T0 - 2 * DAY,
    });
    let promotions = 0;
    for (let i = 1; i <= 5; i++) {
      const { res, ev } = decide(s, request({ amount: '1' }), T0 + i * 60_000);
      const p = ev.events.find((e) => e.eventType === 'trust.promotion');
      if (i === 3) {
        expect(res.trust_level).toBe('VERIFIED');
        expect(ev.agentUpdate?.trust_level).toBe('VERIFIED');
        expect(p?.data).toMatchObject({ previous_tier: 'new', new_tier: 'verified', successful_txns: 3 });
        expect(p?.data.age_hours).toBeGreaterThan(48);
      }
      if (i === 5) {
        expect(res.trust_level).toBe('TRUSTED');
        expect(p?.data).toMatchObject({ previous_tier: 'verified', new_tier: 'trusted', successful_txns: 5 });
      }
      if (p) promotions++;
    }
    expect(promotions).toBe(2);
  });

  it('does not promote an agent younger than the minimum age', () => {
    const s = agent({ overrides: { verified_min_successful_txns: 1 }, createdAtMs: T0 - 3_600_000 });
    const { res, ev } = decide(s, request());
    expect(res.trust_level).toBe('REGISTERED');
    expect(eventTypes(ev)).not.toContain('trust.promotion');
  });

  it('promotionCriteria and metricsFor describe the next level', () => {
    const p = promotionCriteria(
      { trustLevel: 'REGISTERED', successful: 4, declined: 1, total: 5, ageHours: 30 },
      THRESHOLD_DEFAULTS,
    );
    expect(p.next_trust_level).toBe('VERIFIED');
    expect(p.trust_promotion_eligible).toBe(false);
    expect(p.promotion_criteria).toEqual({
      min_successful_txns: { required: 10, actual: 4, met: false },
      min_age_hours: { required: 24, actual: 30, met: true },
      max_decline_rate: { required: 0.2, actual: 0.2, met: true },
    });
    const m = metricsFor(
      'agt_x',
      { trustLevel: 'TRUSTED', approved: 8, declined: 1, stepUps: 1, createdAtMs: T0 - DAY },
      THRESHOLD_DEFAULTS,
      T0,
    );
    expect(m).toMatchObject({
      agent_id: 'agt_x',
      total_transactions: 10,
      successful_transactions: 8,
      declined_transactions: 1,
      decline_rate: 0.1,
      dispute_deflection_rate: 0.5,
      next_trust_level: null,
      trust_promotion_eligible: false,
      promotion_criteria: {},
    });
  });
});
