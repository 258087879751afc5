// When and how long to wait before sending a request again (the service's retry guidance:
// 5xx and 429 with exponential backoff and jitter, honouring Retry-After). Whether a request may
// be sent again at all is the caller's decision (src/client.ts): only safe or idempotent ones.

export interface RetryOptions {
  /** Attempts after the first one; 0 never retries. Default 3. */
  retries?: number;
  /** Backoff before the first retry in milliseconds, doubled for each next one (full jitter). Default 250. */
  baseDelayMs?: number;
  /**
   * Longest wait before one retry in milliseconds, backoff and Retry-After alike. An answer whose
   * Retry-After asks for longer is given to the caller as it is. Default 30000.
   */
  maxDelayMs?: number;
}

export interface RetryPolicy {
  readonly retries: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

export function retryPolicy(options: RetryOptions | false | undefined): RetryPolicy {
  if (options === false) return { retries: 0, baseDelayMs: 0, maxDelayMs: 0 };
  return {
    retries: options?.retries ?? 3,
    baseDelayMs: options?.baseDelayMs ?? 250,
    maxDelayMs: options?.maxDelayMs ?? 30_000,
  };
}

/** Answers worth sending the same request again for: rate limited, or a server fault. */
const RETRY_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);

/** Exponential backoff with full jitter before retry number `attempt` (0 for the first). */
export function backoffMs(policy: RetryPolicy, attempt: number): number {
  return Math.random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
}

/**
 * How long to wait before sending the request of `response` again, or null when the answer is
 * final: a status not worth retrying, or a Retry-After longer than the policy waits.
 */
export async function retryDelayMs(policy: RetryPolicy, response: Response, attempt: number): Promise<number | null> {
  if (!RETRY_STATUSES.has(response.status) && !(await keyInUse(response))) return null;
  const hinted = retryAfterMs(response.headers.get('retry-after'));
  if (hinted === null) return backoffMs(policy, attempt);
  return hinted <= policy.maxDelayMs ? hinted : null;
}

/** 409 idempotency_key_in_use: the first request with this key is still running (Retry-After: 1). */
async function keyInUse(response: Response): Promise<boolean> {
  if (response.status !== 409) return false;
  const body = (await response
    .clone()
    .json()
    .catch(() => null)) as { error?: unknown } | null;
  return body?.error === 'idempotency_key_in_use';
}

/** Retry-After in milliseconds: delay-seconds or an HTTP date (RFC 9110 10.2.3); null when absent or unreadable. */
export function retryAfterMs(value: string | null, nowMs = Date.now()): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
