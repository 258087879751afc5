// Per-credential request rate limits: one token bucket per credential id, in memory, checked
// by the edge right after authentication. Over the limit the request is refused with 429
// rate_limited carrying Retry-After and the IETF RateLimit / RateLimit-Policy headers
// (draft-ietf-httpapi-ratelimit-headers-08 structured fields). On POST /authorize a 429 is a
// transport answer, not a decision: nothing was evaluated or recorded and the caller retries.
// The defaults sit far above what one machine can decide, so they only stop a runaway client.
import { LRUCache } from 'lru-cache';
import { ApiError } from '../errors/registry.js';

export interface RateLimitOptions {
  /** Sustained requests per second allowed per credential; 0 turns rate limiting off. */
  readonly requestsPerSecond: number;
  /** Bucket size: requests a credential may send at once after being idle. */
  readonly burstRequests: number;
  /** Credentials whose buckets are kept; the least recently seen is dropped beyond it. */
  readonly maxTrackedCredentials?: number;
}

interface Bucket {
  tokens: number;
  /** performance.now()-style milliseconds of the last refill. */
  lastMs: number;
}

export interface RateLimitVerdict {
  readonly allowed: boolean;
  /** Whole requests left in the bucket after this one. */
  readonly remaining: number;
  /** Seconds until the bucket is full again (RateLimit `t`). */
  readonly resetSeconds: number;
  /** Seconds until one request is allowed again (Retry-After); 0 when allowed. */
  readonly retryAfterSeconds: number;
}

const POLICY_NAME = 'credential';

export class RateLimiter {
  readonly #rate: number;
  readonly #burst: number;
  readonly #buckets: LRUCache<string, Bucket>;
  readonly #policyHeader: string;

  constructor(options: RateLimitOptions) {
    this.#rate = options.requestsPerSecond;
    this.#burst = Math.max(1, options.burstRequests);
    // Evicting an idle bucket only forgets a partly drained credential: it starts full again,
    // which is at most one extra burst. Active credentials stay in the cache.
    this.#buckets = new LRUCache({ max: options.maxTrackedCredentials ?? 100_000 });
    // The quota is the burst, replenished over the time the rate takes to refill it.
    const windowSeconds = this.#rate > 0 ? Math.max(1, Math.ceil(this.#burst / this.#rate)) : 1;
    this.#policyHeader = `"${POLICY_NAME}";q=${this.#burst};w=${windowSeconds}`;
  }

  get enabled(): boolean {
    return this.#rate > 0;
  }

  /** Takes one token for `key` at time `nowMs` (milliseconds, monotonic). */
  take(key: string, nowMs: number): RateLimitVerdict {
    let b = this.#buckets.get(key);
    if (b === undefined) {
      b = { tokens: this.#burst, lastMs: nowMs };
      this.#buckets.set(key, b);
    } else if (nowMs > b.lastMs) {
      b.tokens = Math.min(this.#burst, b.tokens + ((nowMs - b.lastMs) * this.#rate) / 1000);
      b.lastMs = nowMs;
    }
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return {
        allowed: true,
        remaining: Math.floor(b.tokens),
        resetSeconds: Math.ceil((this.#burst - b.tokens) / this.#rate),
        retryAfterSeconds: 0,
      };
    }
    return {
      allowed: false,
      remaining: 0,
      resetSeconds: Math.ceil((this.#burst - b.tokens) / this.#rate),
      retryAfterSeconds: Math.max(1, Math.ceil((1 - b.tokens) / this.#rate)),
    };
  }

  /** Throws 429 rate_limited (with its headers) when `key` is over its limit. */
  check(key: string, nowMs: number): void {
    if (this.#rate <= 0) return;
    const v = this.take(key, nowMs);
    if (v.allowed) return;
    throw new ApiError('rate_limited', undefined, { headers: this.headers(v) });
  }

  headers(v: RateLimitVerdict): Record<string, string> {
    return {
      'retry-after': String(v.retryAfterSeconds),
      'ratelimit-policy': this.#policyHeader,
      ratelimit: `"${POLICY_NAME}";r=${v.remaining};t=${Math.max(v.resetSeconds, v.retryAfterSeconds)}`,
    };
  }
}
