// The HTTP client of webhook delivery: undici with a connector that re-checks every address at
// connection time (after DNS resolution) under WEBHOOK_URL_POLICY=public, so a name that later
// resolves inward (DNS rebinding, a record changed after registration) is never reached.
// Redirects are never followed: a 3xx is a failed delivery. The error recorded for an attempt
// (and shown to the Principal) never names an address or what a name resolved to: a refused
// destination is "destination not allowed", other failures a fixed phrase; details go to the log.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { Logger } from 'pino';
import { Agent, buildConnector, request } from 'undici';
import type { WebhookUrlPolicy } from '../config/config.js';
import { DESTINATION_NOT_ALLOWED, isPublicAddress, literalIp, urlPort } from './url-policy.js';

/** A destination refused by WEBHOOK_URL_POLICY; its message (for the log only) says why. */
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
  /** Ports allowed under policy public (WEBHOOK_ALLOWED_PORTS); default 443 only. */
  readonly allowedPorts?: readonly number[];
  /** DNS resolution; tests pass their own to simulate a name resolving inward. */
  readonly lookup?: LookupFunction;
  /** Where refused destinations and failure details are logged (never shown to the Principal). */
  readonly log?: Logger;
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
  readonly #log: Logger | undefined;

  constructor(options: WebhookHttpClientOptions) {
    this.#timeoutMs = options.timeoutMs;
    this.#log = options.log;
    const isPublic = options.policy === 'public';
    const allowedPorts = options.allowedPorts ?? [443];
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
          // A stored URL is re-checked at every connection: WEBHOOK_ALLOWED_PORTS may have narrowed.
          const port = urlPort({ port: String(opts.port ?? ''), protocol: opts.protocol });
          if (!allowedPorts.includes(port)) return callback(new SsrfBlockedError(`port ${port} is not allowed`), null);
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
      const error = attemptError(err);
      this.#log?.warn({ url: redact(url), err: detail(err), error }, 'webhook attempt failed without an answer');
      return { ok: false, statusCode: null, error, durationMs: Math.round(performance.now() - started) };
    }
  }

  close(): Promise<void> {
    return this.#agent.destroy();
  }
}

// Fixed phrases by error code: the Principal learns what kind of failure it was, never an
// address (Node's messages name the resolved address and port, e.g. "connect ECONNREFUSED 10.0.0.5:443").
const PHRASES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection closed by the receiver',
  EPIPE: 'connection closed by the receiver',
  UND_ERR_SOCKET: 'connection closed by the receiver',
  UND_ERR_CLOSED: 'connection closed by the receiver',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed',
  ENODATA: 'host name not found',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'host unreachable',
  ETIMEDOUT: 'timed out',
  UND_ERR_CONNECT_TIMEOUT: 'timed out',
  UND_ERR_HEADERS_TIMEOUT: 'timed out',
  UND_ERR_BODY_TIMEOUT: 'timed out',
};

/** The error recorded for an attempt that got no answer: a fixed phrase, never an address. */
export function attemptError(err: unknown): string {
  let e: unknown = err;
  for (let i = 0; i < 5 && e instanceof Error; i++) {
    if (e instanceof SsrfBlockedError) return DESTINATION_NOT_ALLOWED;
    if (e.name === 'TimeoutError' || e.name === 'AbortError') return 'timed out';
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') {
      const phrase = PHRASES[code];
      if (phrase !== undefined) return phrase;
      if (/CERT|TLS|SSL|OSSL|SIGNATURE/.test(code)) return 'TLS handshake failed';
    }
    e = (e as Error & { cause?: unknown }).cause;
  }
  return 'delivery failed';
}

/** The error chain as text, for the log. */
function detail(err: unknown): string {
  const parts: string[] = [];
  let e: unknown = err;
  for (let i = 0; i < 5 && e instanceof Error; i++) {
    const code = (e as { code?: unknown }).code;
    parts.push(typeof code === 'string' ? `${code}: ${e.message}` : e.message);
    e = (e as Error & { cause?: unknown }).cause;
  }
  return parts.join(' <- ');
}

/** A URL without its query (which may carry a receiver's token), for the log. */
function redact(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}
