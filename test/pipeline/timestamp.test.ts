import { describe, expect, it } from 'vitest';
import { isoOf } from '../../src/decision/core.js';

describe('isoOf (cached ISO timestamps of the hot path)', () => {
  it('matches Date.prototype.toISOString across days, months and leap years', () => {
    const samples = [
      0,
      1,
      999,
      86_399_999,
      86_400_000,
      Date.UTC(2024, 1, 29, 23, 59, 59, 999),
      Date.UTC(2025, 11, 31, 12),
    ];
    for (let i = 0; i < 2000; i++) samples.push(Math.floor((i * 7_919_003_117) % 4_102_444_800_000));
    for (const ms of samples) expect(isoOf(ms)).toBe(new Date(ms).toISOString());
  });
});
