// The breaker's choice of deadlines: strict after a failure or a missed deadline until the
// database answers again; relaxed while it answers, however slowly.
import { describe, expect, it } from 'vitest';
import { Breaker } from '../../src/shard/breaker.js';

const STRICT = 150;
const RELAXED = 600;

describe('Breaker deadlines', () => {
  it('relaxed while the database behaves, strict after a missed deadline until it answers again', () => {
    const b = new Breaker(250, 3, 30_000);
    expect(b.deadline(STRICT, RELAXED, 1_000)).toBe(RELAXED);
    b.slow(1_000);
    expect(b.deadline(STRICT, RELAXED, 1_001)).toBe(STRICT);
    expect(b.deadline(STRICT, RELAXED, 20_000)).toBe(STRICT);
    // A late answer (a commit or a load that landed): slow, not gone.
    b.success(20_000);
    expect(b.deadline(STRICT, RELAXED, 20_001)).toBe(RELAXED);
  });

  it('without an answer, strict for the trouble memory after the last trouble, then relaxed', () => {
    const b = new Breaker(250, 3, 30_000);
    b.failure(1_000);
    expect(b.allows(1_100)).toBe(false);
    expect(b.deadline(STRICT, RELAXED, 30_999)).toBe(STRICT);
    expect(b.deadline(STRICT, RELAXED, 31_000)).toBe(RELAXED);
  });

  it('an answer from before the trouble does not relax it', () => {
    const b = new Breaker(250, 3, 30_000);
    b.success(1_000);
    b.slow(2_000);
    expect(b.deadline(STRICT, RELAXED, 2_500)).toBe(STRICT);
  });
});
