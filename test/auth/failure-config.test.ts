// The failed-authentication settings are parsed once at start; a bad value stops start-up with
// one line naming the variable (CONTRACT.md "Running").
import { describe, expect, it } from 'vitest';

const DIST = new URL(`../../${process.env.DIST_DIR ?? 'dist'}/src/`, import.meta.url).href;
const { loadConfig } = (await import(`${DIST}config/config.js`)) as typeof import('../../src/config/config.js');

describe('AUTH_FAILURE_* and AUTH_REJECT_MIN_MS', () => {
  it('default to a 50-failure, 60-second window and a 50 ms rejection floor', () => {
    const c = loadConfig({});
    expect([c.authFailureLimit, c.authFailureWindowSeconds, c.authRejectMinMs]).toEqual([50, 60, 50]);
    const off = loadConfig({ AUTH_FAILURE_LIMIT: '0', AUTH_REJECT_MIN_MS: '0' });
    expect([off.authFailureLimit, off.authRejectMinMs]).toEqual([0, 0]);
  });

  it('refuse a bad value with one line naming the variable', () => {
    for (const [name, value] of [
      ['AUTH_FAILURE_LIMIT', 'many'],
      ['AUTH_FAILURE_LIMIT', '-1'],
      ['AUTH_FAILURE_WINDOW_SECONDS', '0'],
      ['AUTH_FAILURE_WINDOW_SECONDS', '1.5'],
      ['AUTH_REJECT_MIN_MS', '20000'],
    ] as const) {
      expect(() => loadConfig({ [name]: value }), `${name}=${value}`).toThrowError(new RegExp(`^${name}: `));
    }
  });
});
