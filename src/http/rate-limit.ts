// Request rate limits: token buckets per credential (API key; an access token counts against
// the key it was minted from) and per Client (all its keys and all its Principals' keys and
// tokens together), in memory, checked by the edge right after authentication. Over either
// limit the request is refused with 429 rate_limited carrying Retry-After and the IETF
// RateLimit / RateLimit-Policy headers (draft-ietf-httpapi-ratelimit-headers-08 structured
// fields). On POST /authorize a 429 is a transport answer, not a decision: nothing was
// evaluated or recorded and the caller retries.
//
// Several instances: each instance enforces its share, the configured limit divided by the
// live instances sharing the database (src/cluster/instances.ts), so the cluster as a whole
// allows the configured limit when a load balancer spreads a caller's requests evenly. A
// caller pinned to one instance gets only that instance's share (stricter, never looser).
import { LRUCache } from 'lru-cache';
import { ApiError } from '../errors/registry.js';

export interface RateLimitOptions {
  /** Sustained requests per second allowed per key, cluster-wide; 0 turns this limit off. */
  readonly requestsPerSecond: number;
  /** Bucket size, cluster-wide: requests a key may send at once after being idle. */
  readonly burstRequests: number;
  /** Keys whose buckets are kept; the least recently seen is dropped beyond it. */
  readonly maxTrackedCredentials?: number;
  /** Name of the policy in the RateLimit headers (default "credential"). */
  readonly policyName?: string;
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

export class RateLimiter {
  readonly #configuredRate: number;
  readonly #configuredBurst: number;
  #rate: number;
  #burst: number;
  readonly #buckets: LRUCache<string, Bucket>;
  readonly #name: string;
  readonly #policy: string;

  constructor(options: RateLimitOptions) {
    this.#configuredRate = options.requestsPerSecond;
    this.#configuredBurst = Math.max(1, options.burstRequests);
    this.#rate = this.#configuredRate;
    this.#burst = this.#configuredBurst;
    this.#name = options.policyName ?? 'credential';
    // Evicting an idle bucket only forgets a partly drained key: it starts full again, which is
    // at most one extra burst. Active keys stay in the cache.
    this.#buckets = new LRUCache({ max: options.maxTrackedCredentials ?? 100_000 });
    // The quota is the burst, replenished over the time the rate takes to refill it.
    const windowSeconds = this.#rate > 0 ? Math.max(1, Math.ceil(this.#burst / this.#rate)) : 1;
    this.#policy = `"${this.#name}";q=${this.#burst};w=${windowSeconds}`;
  }

  get enabled(): boolean {
    return this.#configuredRate > 0;
  }

  /** The RateLimit-Policy item of this limit (the configured, cluster-wide quota). */
  get policy(): string {
    return this.#policy;
  }

  /**
   * Enforces 1/`instances` of the configured limit from now on (at least one request of burst),
   * as one of `instances` live instances. Existing buckets keep their tokens, capped at the new burst.
   */
  setShare(instances: number): void {
    const n = Math.max(1, Math.floor(instances));
    this.#rate = this.#configuredRate / n;
    this.#burst = Math.max(1, this.#configuredBurst / n);
  }

  /** The bucket of `key` refilled to `nowMs` (milliseconds, monotonic). */
  #bucket(key: string, nowMs: number): Bucket {
    let b = this.#buckets.get(key);
    if (b === undefined) {
      b = { tokens: this.#burst, lastMs: nowMs };
      this.#buckets.set(key, b);
    } else if (nowMs > b.lastMs) {
      b.tokens = Math.min(this.#burst, b.tokens + ((nowMs - b.lastMs) * this.#rate) / 1000);
      b.lastMs = nowMs;
    } else if (b.tokens > this.#burst) {
      b.tokens = this.#burst;
    }
    return b;
  }

  #verdict(b: Bucket, allowed: boolean): RateLimitVerdict {
    const reset = Math.ceil((this.#burst - b.tokens) / this.#rate);
    return allowed
      ? { allowed, remaining: Math.floor(b.tokens), resetSeconds: reset, retryAfterSeconds: 0 }
      : {
          allowed,
          remaining: 0,
          resetSeconds: reset,
          retryAfterSeconds: Math.max(1, Math.ceil((1 - b.tokens) / this.#rate)),
        };
  }

  /** Takes one token for `key` at time `nowMs` (milliseconds, monotonic). */
  take(key: string, nowMs: number): RateLimitVerdict {
    const b = this.#bucket(key, nowMs);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return this.#verdict(b, true);
    }
    return this.#verdict(b, false);
  }

  /** Like take() without taking: whether `key` has a token now, and its verdict if not. */
  peek(key: string, nowMs: number): RateLimitVerdict | null {
    const b = this.#bucket(key, nowMs);
    return b.tokens >= 1 ? null : this.#verdict(b, false);
  }

  /** Throws 429 rate_limited (with its headers) when `key` is over its limit. */
  check(key: string, nowMs: number): void {
    if (this.#configuredRate <= 0) return;
    const v = this.take(key, nowMs);
    if (v.allowed) return;
    throw new ApiError('rate_limited', undefined, { headers: this.headers(v) });
  }

  headers(v: RateLimitVerdict, policies: string = this.#policy): Record<string, string> {
    return {
      'retry-after': String(v.retryAfterSeconds),
      'ratelimit-policy': policies,
      ratelimit: `"${this.#name}";r=${v.remaining};t=${Math.max(v.resetSeconds, v.retryAfterSeconds)}`,
    };
  }
}

/** A Client's own limits (operator plane); an absent field keeps the configured default. */
export interface ClientLimitOverride {
  readonly credentialRequestsPerSecond?: number | null;
  readonly credentialBurstRequests?: number | null;
  readonly clientRequestsPerSecond?: number | null;
  readonly clientBurstRequests?: number | null;
}

interface LimitPair {
  readonly key: RateLimiter;
  readonly client: RateLimiter;
  readonly policies: string;
}

/**
 * The per-key and per-Client limits together: a request takes a token from both buckets or
 * from neither (a refused request costs nothing), and a refusal names the limit that refused.
 * A Client the operator gave limits of its own (setOverride) has its own pair of limiters.
 */
export class RequestLimits {
  readonly #defaults: LimitPair;
  readonly #key: RateLimitOptions;
  readonly #client: RateLimitOptions;
  readonly #overrides = new Map<string, LimitPair>();
  #instances = 1;

  constructor(key: RateLimitOptions, client: RateLimitOptions) {
    this.#key = key;
    this.#client = client;
    this.#defaults = RequestLimits.#pair(key, client);
  }

  static #pair(key: RateLimitOptions, client: RateLimitOptions): LimitPair {
    const k = new RateLimiter({ policyName: 'credential', ...key });
    const c = new RateLimiter({ policyName: 'client', ...client });
    const policies = [k, c]
      .filter((l) => l.enabled)
      .map((l) => l.policy)
      .join(', ');
    return { key: k, client: c, policies };
  }

  /** Shares each limit among `instances` live instances (see RateLimiter.setShare). */
  setShare(instances: number): void {
    this.#instances = instances;
    for (const pair of [this.#defaults, ...this.#overrides.values()]) {
      pair.key.setShare(instances);
      pair.client.setShare(instances);
    }
  }

  /**
   * Gives `clientId` limits of its own (null, or every field null: the defaults again). The
   * Client's buckets start full when its limits change.
   */
  setOverride(clientId: string, o: ClientLimitOverride | null): void {
    const none =
      o === null ||
      (o.credentialRequestsPerSecond == null &&
        o.credentialBurstRequests == null &&
        o.clientRequestsPerSecond == null &&
        o.clientBurstRequests == null);
    if (none) {
      this.#overrides.delete(clientId);
      return;
    }
    // One Client's credentials: a smaller bucket memory than the defaults' (lru-cache allocates it whole).
    const pair = RequestLimits.#pair(
      {
        ...this.#key,
        maxTrackedCredentials: 10_000,
        requestsPerSecond: o.credentialRequestsPerSecond ?? this.#key.requestsPerSecond,
        burstRequests: o.credentialBurstRequests ?? this.#key.burstRequests,
      },
      {
        ...this.#client,
        maxTrackedCredentials: 1,
        requestsPerSecond: o.clientRequestsPerSecond ?? this.#client.requestsPerSecond,
        burstRequests: o.clientBurstRequests ?? this.#client.burstRequests,
      },
    );
    pair.key.setShare(this.#instances);
    pair.client.setShare(this.#instances);
    this.#overrides.set(clientId, pair);
  }

  /** Throws 429 rate_limited when the key or its Client is over its limit; else takes one token of each. */
  check(credentialId: string, clientId: string, nowMs: number): void {
    const { key: keyLimit, client: clientLimit, policies } = this.#overrides.get(clientId) ?? this.#defaults;
    const key = keyLimit.enabled ? keyLimit.peek(credentialId, nowMs) : null;
    const client = clientLimit.enabled ? clientLimit.peek(clientId, nowMs) : null;
    if (key === null && client === null) {
      if (keyLimit.enabled) keyLimit.take(credentialId, nowMs);
      if (clientLimit.enabled) clientLimit.take(clientId, nowMs);
      return;
    }
    // The limit that keeps the caller waiting longest is the one reported.
    const byKey = key !== null && (client === null || key.retryAfterSeconds >= client.retryAfterSeconds);
    const headers = byKey
      ? keyLimit.headers(key as RateLimitVerdict, policies)
      : clientLimit.headers(client as RateLimitVerdict, policies);
    throw new ApiError('rate_limited', undefined, { headers });
  }
}
