// The HTTP client of webhook delivery: undici with a connector that re-checks every address at
// connection time (after DNS resolution) under WEBHOOK_URL_POLICY=public, so a name that later
// resolves inward (DNS rebinding, a record changed after registration) is never reached.
// Redirects are never followed: a 3xx is a failed delivery.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { Agent, buildConnector, request } from 'undici';
import type { WebhookUrlPolicy } from '../config/config.js';
import { isPublicAddress, literalIp } from './url-policy.js';

export class SsrfBlockedError extends Error {
  readonly code = 'ERR_WEBHOOK_SSRF';
  constructor(message: string) {
    super(message);
    this.name = 'SsrfBlockedError';
  }
}

export interface DeliveryResult {
  readonly ok: boolean;
  /** HTTP status of the receiver's answer; null when none arrived (timeout, refused, blocked). */
  readonly statusCode: number | null;
  readonly error: string | null;
  readonly durationMs: number;
}

export interface WebhookHttpClientOptions {
  readonly policy: WebhookUrlPolicy;
  readonly timeoutMs: number;
  /** DNS resolution; tests pass their own to simulate a name resolving inward. */
  readonly lookup?: LookupFunction;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A lookup that fails when any resolved address of the name is not public. */
export function publicOnlyLookup(base: LookupFunction = dnsLookup as LookupFunction): LookupFunction {
  return ((hostname: string, options: { all?: boolean }, callback: LookupCallback) => {
    base(hostname, { ...options, all: true }, ((err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => {
      if (err) return callback(err, options.all ? [] : '', 0);
      const list = Array.isArray(addresses) ? addresses : [];
      const bad = list.find((a) => !isPublicAddress(a.address));
      if (list.length === 0 || bad !== undefined) {
        return callback(
          new SsrfBlockedError(`${hostname} resolves to a non-public address${bad ? ` (${bad.address})` : ''}`),
          options.all ? [] : '',
          0,
        );
      }
      if (options.all) return callback(null, list);
      const first = list[0] as LookupAddress;
      return callback(null, first.address, first.family);
    }) as never);
  }) as LookupFunction;
}

export class WebhookHttpClient {
  readonly #agent: Agent;
  readonly #timeoutMs: number;

  constructor(options: WebhookHttpClientOptions) {
    this.#timeoutMs = options.timeoutMs;
    const isPublic = options.policy === 'public';
    const connector = buildConnector({
      timeout: options.timeoutMs,
      ...(isPublic ? { lookup: publicOnlyLookup(options.lookup) } : options.lookup ? { lookup: options.lookup } : {}),
    });
    this.#agent = new Agent({
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      keepAliveTimeout: 4_000,
      connections: 16,
      connect: (opts, callback) => {
        if (isPublic) {
          if (opts.protocol !== 'https:') return callback(new SsrfBlockedError('only https is allowed'), null);
          // A literal IP never goes through lookup: check it here.
          const ip = literalIp(opts.hostname);
          if (ip !== null && !isPublicAddress(ip)) {
            return callback(new SsrfBlockedError(`${ip} is not a public address`), null);
          }
        }
        connector(opts, callback);
      },
    });
  }

  /** POSTs one body; never throws. Success is a 2xx within the timeout. */
  async post(url: string, body: string, headers: Record<string, string>): Promise<DeliveryResult> {
    const started = performance.now();
    try {
      const res = await request(url, {
        method: 'POST',
        body,
        headers,
        dispatcher: this.#agent,
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
      // Drain (bounded) so the connection can be reused; the content does not matter.
      await res.body.dump({ limit: 64 * 1024 }).catch(() => {});
      const ok = res.statusCode >= 200 && res.statusCode < 300;
      return {
        ok,
        statusCode: res.statusCode,
        error: ok ? null : `receiver answered ${res.statusCode}`,
        durationMs: Math.round(performance.now() - started),
      };
    } catch (err) {
      return { ok: false, statusCode: null, error: describe(err), durationMs: Math.round(performance.now() - started) };
    }
  }

  close(): Promise<void> {
    return this.#agent.destroy();
  }
}

function describe(err: unknown): string {
  let e: unknown = err;
  // undici wraps connector errors; the SSRF refusal is the interesting part.
  for (let i = 0; i < 4 && e instanceof Error; i++) {
    if (e instanceof SsrfBlockedError) return `blocked: ${e.message}`;
    e = (e as Error & { cause?: unknown }).cause;
  }
  if (err instanceof Error) {
    if (err.name === 'TimeoutError' || err.name === 'AbortError') return 'timed out';
    const code = (err as { code?: string }).code;
    return code ? `${code}: ${err.message}` : err.message;
  }
  return String(err);
}
