// The breaker's choice of deadlines: strict after a failure or a missed deadline until the
// database answers again; relaxed while it answers, however slowly.
import { describe, expect, it } from 'vitest';
import { Breaker, DatabaseUnavailableError } from '../../src/storage/breaker.js';

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

describe('Breaker.run (the edge: calls without a deadline of their own)', () => {
  const away = () => Promise.reject(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }));

  it('after the database was found away, fails calls at once but one probe at a time; its success closes it', async () => {
    const b = new Breaker(0);
    await expect(b.run(away)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    let answer: (v: string) => void = () => {};
    const probe = b.run(() => new Promise<string>((r) => (answer = r)));
    // While the probe is out, every other call fails at once without touching the database.
    let touched = false;
    await expect(
      b.run(async () => {
        touched = true;
        return 'x';
      }),
    ).rejects.toBeInstanceOf(DatabaseUnavailableError);
    expect(touched).toBe(false);
    answer('back');
    await expect(probe).resolves.toBe('back');
    await expect(b.run(async () => 'open again')).resolves.toBe('open again');
  });

  it('an error in a statement is an answer: it neither opens the breaker nor keeps it open', async () => {
    const b = new Breaker(0);
    const bad = () => Promise.reject(Object.assign(new Error('syntax'), { code: '42601' }));
    await expect(b.run(bad)).rejects.toMatchObject({ code: '42601' });
    await expect(b.run(async () => 1)).resolves.toBe(1);
    await expect(b.run(away)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await expect(b.run(bad)).rejects.toMatchObject({ code: '42601' });
    await expect(b.run(async () => 2)).resolves.toBe(2);
  });
});
