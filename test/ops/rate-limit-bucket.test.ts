// The per-credential token bucket: burst, refill at the configured rate, and the 429 headers.
import { describe, expect, it } from 'vitest';

const DIST = new URL(`../../${process.env.DIST_DIR ?? 'dist'}/src/`, import.meta.url).href;
const { RateLimiter } = (await import(`${DIST}http/rate-limit.js`)) as typeof import('../../src/http/rate-limit.js');

describe('token bucket', () => {
  it('allows the burst, then refuses until a token has refilled', () => {
    const rl = new RateLimiter({ requestsPerSecond: 2, burstRequests: 3 });
    const t0 = 1000;
    expect(rl.take('k', t0).remaining).toBe(2);
    expect(rl.take('k', t0).remaining).toBe(1);
    expect(rl.take('k', t0).remaining).toBe(0);
    const refused = rl.take('k', t0);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterSeconds).toBe(1);
    // 2 per second: one token after 500 ms.
    expect(rl.take('k', t0 + 499).allowed).toBe(false);
    expect(rl.take('k', t0 + 500).allowed).toBe(true);
    expect(rl.take('k', t0 + 500).allowed).toBe(false);
  });

  it('keeps one bucket per credential', () => {
    const rl = new RateLimiter({ requestsPerSecond: 1, burstRequests: 1 });
    expect(rl.take('a', 0).allowed).toBe(true);
    expect(rl.take('a', 0).allowed).toBe(false);
    expect(rl.take('b', 0).allowed).toBe(true);
  });

  it('throws 429 rate_limited with Retry-After and IETF RateLimit headers', () => {
    const rl = new RateLimiter({ requestsPerSecond: 10, burstRequests: 20 });
    for (let i = 0; i < 20; i++) rl.check('k', 0);
    let caught: unknown;
    try {
      rl.check('k', 0);
    } catch (err) {
      caught = err;
    }
    const e = caught as { code: string; status: number; headers: Record<string, string> };
    expect(e.code).toBe('rate_limited');
    expect(e.status).toBe(429);
    expect(e.headers['retry-after']).toBe('1');
    expect(e.headers['ratelimit-policy']).toBe('"credential";q=20;w=2');
    expect(e.headers.ratelimit).toBe('"credential";r=0;t=2');
  });

  it('is off at 0 requests per second', () => {
    const rl = new RateLimiter({ requestsPerSecond: 0, burstRequests: 1 });
    for (let i = 0; i < 100; i++) rl.check('k', 0);
    expect(rl.enabled).toBe(false);
  });
});
