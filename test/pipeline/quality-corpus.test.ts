// Regression guard of issue 13: a fixed-seed slice of the labeled corpus (bench/quality/)
// replayed through the real decision core. Fails when recall or false declines fall below the
// floors set from the measured figures (docs/decision-engine.md "Corpus figures"). Quality
// floors, not timing: the latency is reported by `npm run quality`.
import { describe, expect, it } from 'vitest';
import { corpusStats, generateCorpus, KINDS, TUNING_SEED } from '../../bench/quality/corpus.js';
import { replay, score } from '../../bench/quality/harness.js';
import { expectWithinFloors, type QualityFloors } from '../fixtures/quality-floors.js';

// Measured on this slice when they were set (the test prints the figures), after the corpus
// made country jumps go to ordinary countries too (2026-11-25): recall mean over kinds 0.963
// (worst kinds country_jump 0.913, task_drift 0.913, rapid_fire 0.954, outlier_spend 0.963),
// stopped within 3 1.0, false declines 0.57% (worst archetype first_abroad 1.46%). The floors
// leave a small margin below the measurement.
const FLOORS: QualityFloors = {
  recallMean: 0.95,
  recallPerKind: 0.89,
  stoppedWithin3: 0.95,
  falseDeclinesMax: 0.008,
  falseDeclinesPerArchetypeMax: 0.025,
};

describe('quality on a fixed-seed corpus slice', () => {
  const corpus = generateCorpus(TUNING_SEED, { honestPerArchetype: 9, perKind: 10 });

  it('the slice is labeled: every kind present, every compromised history has its compromise point', () => {
    const stats = corpusStats(corpus);
    expect(stats.histories).toBe(11 * 9 + KINDS.length * 10);
    expect(stats.requests).toBeGreaterThan(2000);
    for (const h of corpus.histories) {
      if (h.kind === null) {
        expect(h.requests.every((r) => r.label === 'honest')).toBe(true);
      } else {
        const at = h.compromiseAt as number;
        expect(h.requests[at]?.label).toBe('compromised');
        expect(h.requests.slice(0, at).every((r) => r.label === 'honest')).toBe(true);
      }
    }
    // Deterministic: the same seed gives the same corpus.
    expect(JSON.stringify(generateCorpus(TUNING_SEED, { honestPerArchetype: 1, perKind: 1 }))).toBe(
      JSON.stringify(generateCorpus(TUNING_SEED, { honestPerArchetype: 1, perKind: 1 })),
    );
  });

  it('catches compromised agents and spares honest ones above the floors', () => {
    expectWithinFloors(score(corpus, replay(corpus)), FLOORS);
  });
});
