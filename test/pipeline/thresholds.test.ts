import { describe, expect, it } from 'vitest';
import { setThresholdOverrides } from '../../src/decision/core.js';
import {
  mergeThresholds,
  THRESHOLD_DEFAULTS,
  THRESHOLD_NAMES,
  validateThresholdOverrides,
} from '../../src/decision/model/thresholds.js';
import { agent, decide, request, T0 } from '../fixtures/decision-core.js';

describe('thresholds', () => {
  it('defaults include the SPEC-named fields and the zone order', () => {
    expect(THRESHOLD_DEFAULTS).toMatchObject({
      authorize_step_up_threshold: 0.6,
      cts_green_threshold: 0.75,
      cts_amber_threshold: 0.5,
      cts_red_threshold: 0.25,
      risk_score_hard_decline: 0.85,
      verified_min_successful_txns: 10,
      step_up_window_seconds: 900,
    });
    expect(THRESHOLD_NAMES.length).toBeGreaterThan(20);
  });

  it('merges overrides over defaults and ignores unknown or non-numeric values', () => {
    const t = mergeThresholds({ cts_green_threshold: 0.9, bogus: 1, cts_red_threshold: 'x' });
    expect(t.cts_green_threshold).toBe(0.9);
    expect(t.cts_red_threshold).toBe(0.25);
    expect('bogus' in t).toBe(false);
  });

  it('accepts a valid patch and reports the changed fields and effective values', () => {
    const v = validateThresholdOverrides({ cts_green_threshold: 0.8, rapid_fire_max_count: 50 });
    expect(v.ok).toBe(true);
    if (!v.ok) return;
    expect(v.fieldsChanged).toEqual(['cts_green_threshold', 'rapid_fire_max_count']);
    expect(v.overrides).toEqual({ cts_green_threshold: 0.8, rapid_fire_max_count: 50 });
    expect(v.effective.rapid_fire_max_count).toBe(50);
  });

  it('null reverts a field to its default', () => {
    const v = validateThresholdOverrides(
      { cts_green_threshold: null },
      { cts_green_threshold: 0.8, rapid_fire_max_count: 5 },
    );
    expect(v).toMatchObject({
      ok: true,
      overrides: { rapid_fire_max_count: 5 },
      fieldsChanged: ['cts_green_threshold'],
    });
  });

  it('reports field-level problems: unknown field, type, integer, range', () => {
    const v = validateThresholdOverrides({
      nope: 1,
      cts_green_threshold: '0.8',
      rapid_fire_max_count: 2.5,
      risk_score_hard_decline: 1.5,
      intent_anomaly_threshold: 0,
    });
    expect(v.ok).toBe(false);
    if (v.ok) return;
    expect(v.problems.map((p) => p.field).sort()).toEqual([
      'cts_green_threshold',
      'intent_anomaly_threshold',
      'nope',
      'rapid_fire_max_count',
      'risk_score_hard_decline',
    ]);
  });

  it('checks the cross-field order against the stored overrides too', () => {
    const bad = validateThresholdOverrides({ cts_amber_threshold: 0.8 });
    expect(bad).toEqual({
      ok: false,
      problems: [
        {
          field: 'cts_amber_threshold',
          message: 'cts_green_threshold (0.75) must be greater than cts_amber_threshold (0.8)',
        },
      ],
    });
    expect(validateThresholdOverrides({ cts_amber_threshold: 0.8 }, { cts_green_threshold: 0.9 }).ok).toBe(true);
    expect(validateThresholdOverrides({ authorize_step_up_threshold: 0.9 }).ok).toBe(false);
    expect(validateThresholdOverrides({ trusted_min_successful_txns: 5 }).ok).toBe(false);
    expect(validateThresholdOverrides({}).ok).toBe(false);
    expect(validateThresholdOverrides([1]).ok).toBe(false);
  });

  it('a threshold change reaches a loaded state and changes the decision', () => {
    const s = agent();
    for (let i = 0; i < 3; i++) expect(decide(s, request({ amount: '1' }), T0 + i * 100).res.decision).toBe('APPROVE');
    setThresholdOverrides(s, { rapid_fire_max_count: 3 });
    expect(decide(s, request({ amount: '1' }), T0 + 400).res.reason_codes).toEqual(['risk_rapid_fire']);
    setThresholdOverrides(s, null);
    expect(decide(s, request({ amount: '1' }), T0 + 500).res.decision).toBe('APPROVE');
  });
});
