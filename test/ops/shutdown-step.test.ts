// A shutdown that hangs says what it waits on: each step still pending after SLOW_STEP_MS is
// logged at warning level by name, every SLOW_STEP_MS, and nothing is logged for a quick one.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SLOW_STEP_MS, shutdownStep, shutdownStepAtMost } from '../../src/observability/logger.js';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  });
  return { log: pino({ level: 'info' }, sink), lines };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('shutdownStep', () => {
  it('names a step still pending every SLOW_STEP_MS, and stops once it is done', async () => {
    vi.useFakeTimers();
    const { log, lines } = capture();
    let finish: (v: string) => void = () => {};
    const pending = shutdownStep(log, 'live committer', () => new Promise<string>((r) => (finish = r)));
    await vi.advanceTimersByTimeAsync(2 * SLOW_STEP_MS + 10);
    finish('done');
    expect(await pending).toBe('done');
    await vi.advanceTimersByTimeAsync(3 * SLOW_STEP_MS);
    expect(lines.map((l) => [l.level, l.msg, l.step])).toEqual([
      [40, 'shutdown still waiting', 'live committer'],
      [40, 'shutdown still waiting', 'live committer'],
    ]);
    expect(lines.map((l) => l.waited_ms)).toEqual([SLOW_STEP_MS, 2 * SLOW_STEP_MS]);
  });

  it('logs nothing for a step that ends in time, and passes its failure on', async () => {
    vi.useFakeTimers();
    const { log, lines } = capture();
    await expect(shutdownStep(log, 'pools', async () => 1)).resolves.toBe(1);
    await expect(
      shutdownStep(log, 'relay', async () => {
        throw new Error('gone');
      }),
    ).rejects.toThrow('gone');
    await vi.advanceTimersByTimeAsync(3 * SLOW_STEP_MS);
    expect(lines).toEqual([]);
  });

  it('shutdownStepAtMost: a step that never ends is cut at its bound, one that ends is not, a late failure is logged', async () => {
    vi.useFakeTimers();
    const { log, lines } = capture();
    let settled = false;
    const never = shutdownStepAtMost(
      log,
      'shard live committer',
      () => new Promise(() => {}),
      2 * SLOW_STEP_MS + 100,
    ).then(() => {
      settled = true;
    });
    await vi.advanceTimersByTimeAsync(2 * SLOW_STEP_MS);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(200);
    await never;
    expect(lines.map((l) => [l.msg, l.step])).toEqual([
      ['shutdown still waiting', 'shard live committer'],
      ['shutdown still waiting', 'shard live committer'],
      ['shutdown step cut at its bound', 'shard live committer'],
    ]);
    lines.length = 0;
    await shutdownStepAtMost(log, 'shard actors', async () => 1, 1000);
    let fail: (e: Error) => void = () => {};
    await Promise.all([
      shutdownStepAtMost(log, 'relay', () => new Promise((_, reject) => (fail = reject)), 500),
      vi.advanceTimersByTimeAsync(600),
    ]);
    fail(new Error('connection ended'));
    await vi.advanceTimersByTimeAsync(1);
    expect(lines.map((l) => [l.msg, l.step])).toEqual([
      ['shutdown step cut at its bound', 'relay'],
      ['shutdown step failed after it was cut', 'relay'],
    ]);
  });
});
