// Regression floors on the independent corpus (bench/quality/independent/, written from
// docs/quality-independent-corpus.md without reading the gates), replayed whole through the real
// decision core. The floors sit a little below the figures measured when they were set: they
// are floors against regression, not the targets (the targets, recall >= 0.95, stopped within 3
// >= 97%, false declines <= 1% and <= 3% per archetype, are not met on this corpus; see
// docs/decision-engine.md "Two corpora"). Raise a floor when the gates improve; never pick a
// gate's value on this corpus (the classes of traffic it showed the first corpus lacks, and what
// was changed for them, are listed there).
import { describe, expect, it } from 'vitest';
import { HELD_OUT_SEED, TUNING_SEED } from '../../bench/quality/corpus.js';
import { AGENTS_PER_PRINCIPAL, pooled, principalOf, replay, score } from '../../bench/quality/harness.js';
import {
  generateIndependentCorpus,
  INDEPENDENT_ARCHETYPES,
  INDEPENDENT_KINDS,
  INDEPENDENT_POOL_SEEDS,
  INDEPENDENT_SEED,
  type IndependentArchetype,
  type IndependentKind,
  independentStats,
  PRINCIPAL_SIZE,
} from '../../bench/quality/independent/corpus.js';
import { expectWithinFloors, type QualityFloors } from '../fixtures/quality-floors.js';

// Measured by `npm run quality` when the floors were first set (2026-12-02): recall mean 0.7988,
// stopped within 3 0.8542, false declines 0.0237 (62 of 2,611); raised after the gate changes of
// issue 26 (recall 0.8368, stopped within 3 0.9167, false declines 0.0077) and after the claims
// layer of the injection detector and the decoration rule of the lookalike (recall 0.8547); per
// kind and per archetype below.
// The replays of one process are not all alike (the third may count a false decline more than
// the first), so the floors keep a margin.
const FLOORS = {
  recallMean: 0.84,
  stoppedWithin3: 0.89,
  falseDeclinesMax: 0.01,
  /** Measured: 0.686, 1, 0.8889 (0.8611 before the decoration rule, 0.7778 before the payment-word and spacing rules), 0.931 (0.8276 before the claims layer), 0.5455, 0.875, 0.8992 (0.6555 before the pace rule), 1. */
  recallPerKind: {
    slow_drip: 0.65,
    cap_probing: 0.95,
    merchant_mimicry: 0.86,
    prompt_injection: 0.9,
    mimic_then_deviate: 0.5,
    coordinated_drain: 0.8,
    rapid_fire: 0.87,
    cash_out: 0.95,
  } satisfies Record<IndependentKind, number>,
  /** Ceilings. Measured: 0.0209, 0.0027, 0.0329, 0, 0.0087, 0.0034, 0, 0.0062, 0.0116 (issue 26; before: 0.0262, 0.0241, 0.0423, 0.004, 0.0174, 0.0206, 0, 0.0586, 0.0405). */
  falseDeclinesPerArchetypeMax: {
    subscriptions: 0.03,
    travel: 0.01,
    marketplace: 0.04,
    procurement: 0.015,
    delegate: 0.012,
    bursts: 0.01,
    errands: 0.01,
    relocation: 0.015,
    event_planning: 0.02,
  } satisfies Record<IndependentArchetype, number>,
} satisfies QualityFloors;

// The same generator at INDEPENDENT_POOL_SEEDS, pooled (1,020 histories): one seed's figures swing
// (over seeds 1-8, recall 0.77-0.85 and false declines 0.83-1.96%), the pool's do not. Measured
// 2026-12-03 when set: recall mean 0.8226, stopped within 3 0.90, false declines 0.0129 (328 of
// 25,335), per kind and per archetype below. The false-decline target (1%) is not met pooled.
const POOLED_FLOORS = {
  recallMean: 0.81,
  stoppedWithin3: 0.88,
  falseDeclinesMax: 0.014,
  /** Measured: 0.707, 0.9974, 0.906, 0.908, 0.4457, 0.7562, 0.8607, 1. */
  recallPerKind: {
    slow_drip: 0.68,
    cap_probing: 0.98,
    merchant_mimicry: 0.88,
    prompt_injection: 0.88,
    mimic_then_deviate: 0.42,
    coordinated_drain: 0.73,
    rapid_fire: 0.84,
    cash_out: 0.98,
  } satisfies Record<IndependentKind, number>,
  /** Ceilings. Measured: 0.0258, 0.0162, 0.0262, 0.0035, 0.011, 0.0084, 0.0027, 0.018, 0.0113. */
  falseDeclinesPerArchetypeMax: {
    subscriptions: 0.029,
    travel: 0.019,
    marketplace: 0.029,
    procurement: 0.006,
    delegate: 0.013,
    bursts: 0.011,
    errands: 0.005,
    relocation: 0.021,
    event_planning: 0.014,
  } satisfies Record<IndependentArchetype, number>,
} satisfies QualityFloors;

const toMinor = (amount: string): number => Number(amount.replace('.', ''));

describe('the independent corpus', () => {
  const corpus = generateIndependentCorpus();

  it('has its own seed, every archetype and kind, and labels every compromise point', () => {
    expect(INDEPENDENT_SEED).not.toBe(TUNING_SEED);
    expect(INDEPENDENT_SEED).not.toBe(HELD_OUT_SEED);
    expect(PRINCIPAL_SIZE).toBe(AGENTS_PER_PRINCIPAL);
    const stats = independentStats(corpus);
    expect(stats.histories).toBeGreaterThanOrEqual(60);
    expect(stats.histories).toBeLessThanOrEqual(120);
    expect(stats.requests).toBeGreaterThanOrEqual(1500);
    expect(stats.requests).toBeLessThanOrEqual(3100);
    expect(Object.keys(stats.histories_by_archetype).sort()).toEqual([...INDEPENDENT_ARCHETYPES].sort());
    expect(Object.keys(stats.histories_by_kind).sort()).toEqual([...INDEPENDENT_KINDS].sort());
    for (const h of corpus.histories) {
      if (h.kind === null) {
        expect(h.compromiseAt).toBeNull();
        expect(h.requests.every((r) => r.label === 'honest')).toBe(true);
      } else {
        const at = h.compromiseAt as number;
        expect(at, h.id).toBeGreaterThanOrEqual(6);
        expect(h.requests.slice(0, at).every((r) => r.label === 'honest')).toBe(true);
        expect(h.requests.slice(at).every((r) => r.label === 'compromised' && r.kind === h.kind)).toBe(true);
        expect(h.requests.length - at, h.id).toBeGreaterThanOrEqual(2);
      }
      const mandates = new Map(h.mandates.map((m) => [m.currency, m]));
      for (let i = 0; i < h.requests.length; i++) {
        const r = h.requests[i] as (typeof h.requests)[number];
        if (i > 0) expect(r.atMs).toBeGreaterThanOrEqual((h.requests[i - 1] as typeof r).atMs);
        const m = mandates.get(r.currency);
        expect(m, `${h.id}#${i} ${r.currency}`).toBeDefined();
        // Honest agents stay inside what their Principal granted.
        if (r.label === 'honest') expect(toMinor(r.amount)).toBeLessThanOrEqual(toMinor(m?.perTransaction ?? '0'));
      }
    }
  });

  it('puts the agents of each coordinated drain under one Principal', () => {
    const principals = new Map<string, Set<string>>();
    corpus.histories.forEach((h, i) => {
      if (h.kind !== 'coordinated_drain') return;
      const group = h.id.split('-').slice(0, 3).join('-');
      const set = principals.get(group) ?? new Set<string>();
      set.add(principalOf(corpus, i));
      principals.set(group, set);
    });
    expect(principals.size).toBeGreaterThan(0);
    for (const [group, set] of principals) expect(set.size, group).toBe(1);
  });

  it('is deterministic: the same seed gives the same corpus, another seed another', () => {
    const again = generateIndependentCorpus(INDEPENDENT_SEED);
    expect(JSON.stringify(again)).toBe(JSON.stringify(corpus));
    expect(JSON.stringify(generateIndependentCorpus(INDEPENDENT_SEED + 1))).not.toBe(JSON.stringify(corpus));
  });

  it('keeps recall, early stops and false declines at or above the floors measured', () => {
    const r = score(corpus, replay(corpus), { archetypes: INDEPENDENT_ARCHETYPES, kinds: INDEPENDENT_KINDS });
    expectWithinFloors(r, FLOORS);
  });

  it(`keeps the figures pooled over ${INDEPENDENT_POOL_SEEDS.length} seeds within their floors`, () => {
    const names = { archetypes: INDEPENDENT_ARCHETYPES, kinds: INDEPENDENT_KINDS };
    const reports = INDEPENDENT_POOL_SEEDS.map((seed) => {
      const c = generateIndependentCorpus(seed);
      return score(c, replay(c), names);
    });
    const r = pooled(reports);
    expect(r.histories).toBe(reports.reduce((n, x) => n + x.histories, 0));
    expectWithinFloors(r, POOLED_FLOORS);
  });
});
