// The HTTP edge on uWebSockets.js: one catch-all handler that reads the body (bounded),
// resolves the route, authenticates, validates against the precompiled schemas, calls the
// handler and writes the reply or the error envelope. Every response carries X-Request-Id.

import uWS from 'uWebSockets.js';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { Authenticator } from '../auth/types.js';
import type { Config } from '../config/config.js';
import { newId } from '../domain/ids.js';
import { ApiError } from '../errors/registry.js';
import type { ServiceMetrics } from '../observability/metrics.js';
import type { Databases } from '../storage/db.js';
import { getValidator, validate } from '../validation/validate.js';
import { ClientIpResolver } from './client-ip.js';
import { errorEnvelope } from './envelope.js';
import type { RateLimiter } from './rate-limit.js';
import type { Router } from './router.js';
import type { HttpMethod, Reply, RequestContext, RouteDef } from './types.js';

const STATUS_TEXT: Record<number, string> = {
  200: '200 OK',
  201: '201 Created',
  202: '202 Accepted',
  204: '204 No Content',
  400: '400 Bad Request',
  401: '401 Unauthorized',
  403: '403 Forbidden',
  404: '404 Not Found',
  405: '405 Method Not Allowed',
  409: '409 Conflict',
  413: '413 Payload Too Large',
  415: '415 Unsupported Media Type',
  422: '422 Unprocessable Entity',
  429: '429 Too Many Requests',
  500: '500 Internal Server Error',
  503: '503 Service Unavailable',
};

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const EMPTY = Buffer.alloc(0);

export interface HttpServerDeps {
  config: Config;
  log: Logger;
  router: Router;
  authenticator: Authenticator;
  dbs: Databases;
  /** Per-request counters and latency by route template (src/observability/metrics.ts). */
  metrics?: ServiceMetrics;
  /** Per-credential token buckets, checked right after authentication. */
  rateLimiter?: RateLimiter;
}

/** Per-request state kept on our side of the uWS response (never touch res after abort). */
interface Pending {
  aborted: boolean;
  done: boolean;
  /** Route template for metrics ('unmatched' until the router matches). */
  route: string;
  startedAt: number;
}

export class HttpServer {
  readonly #deps: HttpServerDeps;
  readonly #app: uWS.TemplatedApp;
  readonly #ips: ClientIpResolver;
  #listenSocket: uWS.us_listen_socket | null = null;
  #inFlight = 0;
  #drainWaiters: (() => void)[] = [];
  #port = 0;

  constructor(deps: HttpServerDeps) {
    this.#deps = deps;
    this.#ips = new ClientIpResolver(deps.config.trustedProxies);
    this.#app = uWS.App();
    this.#app.any('/*', (res, req) => this.#onRequest(res, req));
  }

  get port(): number {
    return this.#port;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      this.#app.listen(host, port, (socket) => {
        if (!socket) {
          reject(new Error(`cannot listen on ${host}:${port}`));
          return;
        }
        this.#listenSocket = socket;
        this.#port = uWS.us_socket_local_port(socket);
        resolve(this.#port);
      });
    });
  }

  /** Stops accepting connections, then resolves once every in-flight request is answered. */
  async close(): Promise<void> {
    if (this.#listenSocket !== null) {
      uWS.us_listen_socket_close(this.#listenSocket);
      this.#listenSocket = null;
    }
    if (this.#inFlight > 0) {
      await new Promise<void>((resolve) => this.#drainWaiters.push(resolve));
    }
  }

  #onRequest(res: uWS.HttpResponse, req: uWS.HttpRequest): void {
    const startedAt = performance.now();
    const method = req.getCaseSensitiveMethod().toUpperCase();
    const path = req.getUrl();
    const queryString = req.getQuery() ?? '';
    const headers: Record<string, string> = {};
    req.forEach((k, v) => {
      headers[k] = v;
    });
    const requestId = newId('req');
    const peer = Buffer.from(res.getRemoteAddressAsText()).toString();
    const ip = this.#ips.resolve(peer, headers['x-forwarded-for']);
    const pending: Pending = { aborted: false, done: false, route: 'unmatched', startedAt };
    this.#inFlight++;
    res.onAborted(() => {
      pending.aborted = true;
      this.#finish(pending, ctx.method, 499);
    });

    const ctx: RequestContext = {
      requestId,
      method: method as HttpMethod,
      path,
      params: {},
      query: parseQuery(queryString),
      headers,
      ip,
      rawBody: EMPTY,
      body: undefined,
      auth: null,
      db: null,
      startedAt,
    };

    if (!BODY_METHODS.has(method)) {
      void this.#dispatch(res, ctx, pending);
      return;
    }
    const max = this.#deps.config.maxBodyBytes;
    const declared = headers['content-length'];
    if (declared !== undefined && Number(declared) > max) {
      this.#writeError(res, ctx, pending, new ApiError('payload_too_large'), true);
      return;
    }
    let chunks: Buffer[] | null = [];
    let size = 0;
    res.onData((ab, isLast) => {
      if (chunks === null) return;
      size += ab.byteLength;
      if (size > max) {
        chunks = null;
        this.#writeError(res, ctx, pending, new ApiError('payload_too_large'), true);
        return;
      }
      // uWS reuses the ArrayBuffer after this callback: copy before keeping it.
      chunks.push(Buffer.from(new Uint8Array(ab)));
      if (isLast) {
        (ctx as { rawBody: Buffer }).rawBody = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
        chunks = null;
        void this.#dispatch(res, ctx, pending);
      }
    });
  }

  async #dispatch(res: uWS.HttpResponse, ctx: RequestContext, pending: Pending): Promise<void> {
    let route: RouteDef | undefined;
    try {
      const match = this.#deps.router.match(ctx.method, ctx.path);
      if (match.kind === 'not_found') throw new ApiError('route_not_found');
      if (match.kind === 'method_not_allowed') {
        throw new ApiError('method_not_allowed', undefined, { headers: { allow: match.allow.join(', ') } });
      }
      route = match.route;
      (ctx as { params: Record<string, string> }).params = match.params;
      pending.route = route.path;
      if (route.auth !== 'none') {
        ctx.auth = await this.#deps.authenticator.authenticate(ctx, route);
        if (ctx.auth !== null && ctx.auth.kind !== 'admin') {
          this.#deps.rateLimiter?.check(ctx.auth.credentialId, performance.now());
          ctx.db = this.#deps.dbs.forEnv(ctx.auth.environment);
        }
      }
      if (route.body !== undefined) ctx.body = validate(getValidator(route.body), parseBody(ctx, route));
      if (route.query !== undefined) validate(getValidator(route.query), ctx.query);
      const reply = await route.handler(ctx);
      this.#write(res, ctx, pending, reply);
    } catch (err) {
      // A route that must never answer 5xx (POST /authorize) answers its own fault reply instead.
      if (route?.onFault !== undefined && !(err instanceof ApiError && err.status < 500)) {
        try {
          this.#write(res, ctx, pending, route.onFault(ctx, err));
          return;
        } catch (faultErr) {
          this.#deps.log.error({ err: faultErr, request_id: ctx.requestId }, 'onFault failed');
        }
      }
      this.#writeError(res, ctx, pending, err, false);
    }
  }

  #write(res: uWS.HttpResponse, ctx: RequestContext, pending: Pending, reply: Reply): void {
    if (pending.aborted || pending.done) return;
    const body = reply.rawJson ?? (reply.body === undefined || reply.status === 204 ? '' : JSON.stringify(reply.body));
    res.cork(() => {
      res.writeStatus(STATUS_TEXT[reply.status] ?? String(reply.status));
      if (body.length > 0 && reply.headers?.['content-type'] === undefined) {
        res.writeHeader('content-type', 'application/json');
      }
      res.writeHeader('x-request-id', ctx.requestId);
      if (reply.headers !== undefined) for (const k in reply.headers) res.writeHeader(k, reply.headers[k] as string);
      res.end(body);
    });
    this.#finish(pending, ctx.method, reply.status);
    if (this.#deps.log.isLevelEnabled('debug')) {
      this.#deps.log.debug(
        { request_id: ctx.requestId, method: ctx.method, path: ctx.path, status: reply.status },
        'request',
      );
    }
  }

  #writeError(res: uWS.HttpResponse, ctx: RequestContext, pending: Pending, err: unknown, close: boolean): void {
    const env = errorEnvelope(err, ctx.requestId, this.#deps.log);
    if (env.status >= 500 || this.#deps.log.isLevelEnabled('debug')) {
      this.#deps.log[env.status >= 500 ? 'error' : 'debug'](
        { request_id: ctx.requestId, method: ctx.method, path: ctx.path, status: env.status },
        'request failed',
      );
    }
    if (pending.aborted || pending.done) return;
    res.cork(() => {
      res.writeStatus(STATUS_TEXT[env.status] ?? String(env.status));
      res.writeHeader('content-type', 'application/json');
      res.writeHeader('x-request-id', ctx.requestId);
      if (env.headers !== undefined) for (const k in env.headers) res.writeHeader(k, env.headers[k] as string);
      res.end(env.body, close);
    });
    this.#finish(pending, ctx.method, env.status);
  }

  #finish(pending: Pending, method: string, status: number): void {
    if (pending.done) return;
    pending.done = true;
    this.#inFlight--;
    const m = this.#deps.metrics;
    if (m !== undefined) {
      m.httpRequests.labels(pending.route, method, String(status)).inc();
      m.httpDuration.labels(pending.route).observe((performance.now() - pending.startedAt) / 1000);
    }
    if (this.#inFlight === 0 && this.#drainWaiters.length > 0) {
      const waiters = this.#drainWaiters;
      this.#drainWaiters = [];
      for (const w of waiters) w();
    }
  }
}

function parseQuery(qs: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (qs.length === 0) return out;
  for (const [k, v] of new URLSearchParams(qs)) out[k] = v;
  return out;
}

function parseBody(ctx: RequestContext, route: RouteDef): unknown {
  if (ctx.rawBody.length === 0) return {};
  const type = (ctx.headers['content-type'] ?? 'application/json').split(';')[0]?.trim().toLowerCase();
  if (route.form === true && type === 'application/x-www-form-urlencoded') {
    return Object.fromEntries(new URLSearchParams(ctx.rawBody.toString('utf8')));
  }
  if (type !== 'application/json' && !type?.endsWith('+json')) throw new ApiError('unsupported_media_type');
  try {
    return JSON.parse(ctx.rawBody.toString('utf8'));
  } catch {
    throw new ApiError('invalid_json');
  }
}
