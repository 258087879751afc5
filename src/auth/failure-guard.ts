// Failed authentications: counted per source, logged, throttled, and answered in uniform time.
//
// - Every failure (an API key, a token, a client secret or an X-Admin-Key that does not
//   authenticate, or a valid key used from an address outside its allowlist) is logged at warn
//   with the source address, the route template and the failure class; never the key.
// - A source (client address as resolved through TRUSTED_PROXIES; an IPv6 address counts as
//   its /64, which one host usually holds whole) with AUTH_FAILURE_LIMIT failures within
//   AUTH_FAILURE_WINDOW_SECONDS gets 429 rate_limited with Retry-After until the window ends,
//   before any key is looked up: the throttle refuses guesses, not customers, so a credential
//   this instance already knows to be valid (the operator key, an API key that authenticated
//   here within the last day from any address, an access token verified before) still goes on
//   to be authenticated. One tenant's wrong keys behind a shared address (a cloud NAT) do not
//   lock out the others; an unknown or failing key gets 429 with no lookup, so guessing stays
//   as slow as before. Counts are per instance.
// - A rejection is answered no sooner than AUTH_REJECT_MIN_MS after the request arrived,
//   whatever the reason: an unknown key (one database lookup), a revoked key (the same lookup,
//   a row found) and a key of the wrong plane (served from the cache, no lookup) are
//   indistinguishable by their timing as long as the lookup is faster than that floor.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { ApiError } from '../errors/registry.js';
import type { Authenticator, RequestContext, RouteDef } from '../http/types.js';
import type { AuthContext } from './types.js';

/** Why an authentication failed, as logged (the caller only ever sees the uniform 401/403). */
export type AuthFailureClass =
  | 'missing'
  | 'malformed'
  | 'unknown'
  | 'revoked'
  | 'expired'
  | 'rotated_out'
  | 'wrong_plane'
  | 'no_single_principal'
  | 'token_invalid'
  | 'token_credential_inactive'
  | 'token_key_retired'
  | 'id_mismatch'
  | 'admin_key'
  | 'ip_not_allowed'
  | 'other';

/**
 * A failed authentication: the same envelope as any 401 unauthorized (or the 403 of an
 * origin outside the allowlist), carrying for the log why it failed.
 */
export class AuthFailure extends ApiError {
  readonly failure: AuthFailureClass;
  readonly credentialId: string | null;

  constructor(
    failure: AuthFailureClass,
    options: { credentialId?: string | null; code?: 'unauthorized' | 'forbidden'; message?: string } = {},
  ) {
    super(options.code ?? 'unauthorized', options.message);
    this.failure = failure;
    this.credentialId = options.credentialId ?? null;
  }
}

export interface AuthFailureGuardOptions {
  /** Failures a source may have within the window; 0 turns throttling off (logging stays). */
  readonly limit: number;
  readonly windowSeconds: number;
  /** Least time, in milliseconds, between the start of an authentication and its rejection. */
  readonly rejectMinMs: number;
  readonly log: Logger;
  /** Sources whose failure counts are kept; the least recently failing is dropped beyond it. */
  readonly maxTrackedSources?: number;
}

interface Window {
  count: number;
  /** Epoch ms at which this window ends (and a throttled source may try again). */
  resetAtMs: number;
}

export class AuthFailureGuard {
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #rejectMinMs: number;
  readonly #log: Logger;
  readonly #windows: LRUCache<string, Window>;
  /** Throttled sources -> end of their window. Empty in normal operation: one size check. */
  readonly #blocked = new Map<string, number>();

  constructor(options: AuthFailureGuardOptions) {
    this.#limit = options.limit;
    this.#windowMs = options.windowSeconds * 1000;
    this.#rejectMinMs = options.rejectMinMs;
    this.#log = options.log;
    this.#windows = new LRUCache({ max: options.maxTrackedSources ?? 100_000 });
  }

  /**
   * Throws 429 rate_limited with Retry-After when `ip`'s source is throttled, unless `known()`
   * says the request carries a credential already known to be valid (asked only then).
   */
  check(ip: string, known?: () => boolean): void {
    if (this.#blocked.size === 0) return;
    const source = sourceOf(ip);
    const until = this.#blocked.get(source);
    if (until === undefined) return;
    const now = Date.now();
    if (now >= until) {
      this.#blocked.delete(source);
      return;
    }
    if (known?.() === true) return;
    const retryAfter = Math.max(1, Math.ceil((until - now) / 1000));
    throw new ApiError(
      'rate_limited',
      `Too many failed authentications from this address; retry after ${retryAfter} s.`,
      {
        headers: { 'retry-after': String(retryAfter) },
      },
    );
  }

  /**
   * Records and logs one failure of `ip` on `route`, then resolves no sooner than the
   * rejection floor after `startedMs` (performance.now() when the request arrived).
   */
  async failed(
    ip: string,
    route: string,
    failure: AuthFailureClass,
    startedMs: number,
    credentialId: string | null,
  ): Promise<void> {
    const source = sourceOf(ip);
    this.#log.warn(
      credentialId === null ? { ip, route, failure } : { ip, route, failure, credential_id: credentialId },
      'authentication failed',
    );
    if (this.#limit > 0) this.#count(source, ip);
    const wait = startedMs + this.#rejectMinMs - performance.now();
    if (wait > 0) await sleep(wait);
  }

  #count(source: string, ip: string): void {
    const now = Date.now();
    let w = this.#windows.get(source);
    if (w === undefined || now >= w.resetAtMs) {
      w = { count: 0, resetAtMs: now + this.#windowMs };
      this.#windows.set(source, w);
    }
    w.count++;
    if (w.count === this.#limit) {
      if (this.#blocked.size >= 10_000) this.#pruneBlocked(now);
      this.#blocked.set(source, w.resetAtMs);
      this.#log.warn(
        { ip, source, failures: w.count, retry_after_s: Math.ceil((w.resetAtMs - now) / 1000) },
        'authentication failures over the limit: source throttled',
      );
    }
  }

  #pruneBlocked(now: number): void {
    for (const [source, until] of this.#blocked) if (now >= until) this.#blocked.delete(source);
  }
}

/**
 * Wraps the authenticator the edge calls: a throttled source is refused before any lookup,
 * and every failure goes through the guard (log, count, uniform rejection time).
 */
/** An authenticator that can tell, without a lookup, a credential it already knows to be valid. */
export interface KnowingAuthenticator extends Authenticator {
  known(ctx: RequestContext, route: RouteDef): boolean;
}

export class GuardedAuthenticator implements Authenticator {
  readonly #inner: KnowingAuthenticator;
  readonly #guard: AuthFailureGuard;

  constructor(inner: KnowingAuthenticator, guard: AuthFailureGuard) {
    this.#inner = inner;
    this.#guard = guard;
  }

  async authenticate(ctx: RequestContext, route: RouteDef): Promise<AuthContext | null> {
    if (route.auth === 'none') return null;
    this.#guard.check(ctx.ip, () => this.#inner.known(ctx, route));
    try {
      return await this.#inner.authenticate(ctx, route);
    } catch (err) {
      const failure = failureOf(err, route);
      if (failure !== null) {
        await this.#guard.failed(
          ctx.ip,
          route.path,
          failure,
          // The floor counts from the request's arrival: no clock read on the success path.
          ctx.startedAt,
          err instanceof AuthFailure ? err.credentialId : null,
        );
      }
      throw err;
    }
  }
}

/** The failure class of an error thrown by authentication; null when it is not a failed authentication. */
function failureOf(err: unknown, route: RouteDef): AuthFailureClass | null {
  if (err instanceof AuthFailure) return err.failure;
  if (!(err instanceof ApiError)) return null;
  if (err.code === 'unauthorized') return 'other';
  // A wrong or missing X-Admin-Key is 403 (CONTRACT.md), and a failed authentication all the same.
  if (err.code === 'forbidden' && route.auth === 'admin') return 'admin_key';
  return null;
}

/**
 * The unit a failure is counted against: the IPv4 address, or the /64 of an IPv6 address
 * (a single host or customer usually holds a whole /64, so counting addresses would let one
 * attacker rotate through 2^64 of them).
 */
export function sourceOf(ip: string): string {
  if (!ip.includes(':')) return ip;
  const [head, tail] = ip.split('::', 2) as [string, string | undefined];
  const left = head === '' ? [] : head.split(':');
  let groups = left;
  if (tail !== undefined) {
    const right = tail === '' ? [] : tail.split(':');
    groups = [...left, ...new Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toLowerCase().replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}
