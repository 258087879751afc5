// The HTTP edge on uWebSockets.js: one catch-all handler that reads the body (bounded),
// resolves the route, authenticates, validates against the precompiled schemas, calls the
// handler and writes the reply or the error envelope. Every response carries X-Request-Id.
// The whole uWebSockets.js request lifecycle (abort, body, cork, drain, deadline) is kept in
// this one file, as STYLE.md asks for code that must not touch a dead response.

import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
// Before uws-pack: the settings its native library reads as it loads.
import './uws-env.js';
import * as uWS from 'uws-pack';
import type { AuthContext } from '../auth/types.js';
import type { Config } from '../config/config.js';
import { newId } from '../domain/ids.js';
import { DeadlineError } from '../errors/deadline.js';
import { ApiError } from '../errors/registry.js';
import type { ServiceMetrics } from '../observability/metrics.js';
import type { Databases, Sql } from '../storage/db.js';
import { assertMetadataSize, metadataPaths } from '../validation/metadata.js';
import { assertStorable, jsonTextDeeperThan, MAX_JSON_DEPTH } from '../validation/storable.js';
import { assertStorableFields, assertStorableText } from '../validation/storable-text.js';
import { getValidator, schemaErrors, validate, validationError } from '../validation/validate.js';
import { ClientIpResolver } from './client-ip.js';
import { DeadlineSweeper } from './deadline.js';
import { errorEnvelope } from './envelope.js';
import type { RequestLimits } from './rate-limit.js';
import type { Router } from './router.js';
import type { Authenticator, AuthMode, HttpMethod, Reply, RequestContext, RouteDef, RouteFor } from './types.js';

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
/**
 * During a drain, how long the edge keeps idle keep-alive connections open after the last
 * request arrived, so that a client already sending on one is answered (with Connection: close)
 * rather than cut. Closing an idle keep-alive connection always races a client that starts a
 * request at that instant (RFC 9112 section 9.8); the grace makes that window small.
 */
const DRAIN_IDLE_GRACE_MS = 500;
const DRAIN_POLL_MS = 10;

/** How a drain ended (HttpServer.close). */
export interface DrainResult {
  /** Requests still unanswered at the deadline, cut when the connections closed. */
  readonly cut: number;
  readonly durationMs: number;
}
const HEAD = 'HEAD' as HttpMethod;
/** The kind of caller each authenticated auth mode admits (src/http/types.ts AuthOf). */
const CALLER_KIND: Readonly<Record<Exclude<AuthMode, 'none'>, AuthContext['kind']>> = Object.freeze({
  admin: 'admin',
  client: 'client',
  principal: 'principal',
  principal_key: 'principal',
});
/** Headers that frame the message or name its target: a second copy is a smuggling attempt. */
const SINGLE_HEADERS = new Set(['content-length', 'transfer-encoding', 'host']);
/** Refuses bytes that are not UTF-8 (RFC 8259 8.1) instead of replacing them with U+FFFD. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

export interface HttpServerDeps {
  config: Config;
  log: Logger;
  router: Router;
  authenticator: Authenticator;
  dbs: Databases;
  /** Per-request counters and latency by route template (src/observability/metrics.ts). */
  metrics?: ServiceMetrics;
  /** Per-credential and per-Client token buckets, checked right after authentication. */
  rateLimiter?: RequestLimits;
}

/** Per-request state kept on our side of the uWS response (never touch res after abort). */
interface Pending {
  aborted: boolean;
  done: boolean;
  /** Route template for metrics ('unmatched' until the router matches). */
  route: string;
  startedAt: number;
  /** When the answer deadline passes (performance.now()); set once the route is known. */
  dueAt: number;
  readonly res: uWS.HttpResponse;
  ctx: RequestContext | null;
  def: RouteDef | null;
}

/** Passed to a route's onFault when its answer deadline passed. */
const ANSWER_DEADLINE = new DeadlineError('answer');

export class HttpServer {
  readonly #deps: HttpServerDeps;
  readonly #app: uWS.TemplatedApp;
  readonly #ips: ClientIpResolver;
  #listenSocket: uWS.us_listen_socket | null = null;
  #inFlight = 0;
  #port = 0;
  /** Set by close(): every response from then on closes its connection (Connection: close). */
  #draining = false;
  /** performance.now() of the last request received (the drain's idle grace counts from it). */
  #lastRequestAt = 0;
  #closing: Promise<DrainResult> | null = null;
  readonly #deadlines = new DeadlineSweeper<Pending>((p) => this.#expire(p));

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

  /**
   * Graceful stop, bounded by `timeoutMs`: stops accepting connections; answers every request
   * already received and the next one on each open keep-alive connection, each with
   * `Connection: close`; once nothing is in flight and no request has arrived for a short grace,
   * closes the idle keep-alive connections that remain. At the deadline, whatever is still in
   * flight is cut (counted in the result).
   */
  close(timeoutMs: number): Promise<DrainResult> {
    this.#closing ??= this.#drain(timeoutMs);
    return this.#closing;
  }

  async #drain(timeoutMs: number): Promise<DrainResult> {
    const started = performance.now();
    const deadline = started + timeoutMs;
    this.#draining = true;
    if (this.#listenSocket !== null) {
      uWS.us_listen_socket_close(this.#listenSocket);
      this.#listenSocket = null;
    }
    for (;;) {
      const now = performance.now();
      if (now >= deadline) break;
      if (this.#inFlight === 0 && now - this.#lastRequestAt >= DRAIN_IDLE_GRACE_MS) break;
      await new Promise((r) => setTimeout(r, Math.min(DRAIN_POLL_MS, deadline - now)));
    }
    const cut = this.#inFlight;
    // Closes the remaining (idle) connections with a FIN; a request still in flight at the
    // deadline is aborted (its onAborted runs and settles the in-flight count).
    this.#app.close();
    return { cut, durationMs: Math.round(performance.now() - started) };
  }

  #onRequest(res: uWS.HttpResponse, req: uWS.HttpRequest): void {
    const startedAt = performance.now();
    this.#lastRequestAt = startedAt;
    const method = req.getCaseSensitiveMethod().toUpperCase();
    const path = req.getUrl();
    const queryString = req.getQuery() ?? '';
    const headers: Record<string, string> = {};
    let repeated: string | null = null;
    req.forEach((k, v) => {
      if (headers[k] !== undefined && SINGLE_HEADERS.has(k)) repeated = k;
      headers[k] = v;
    });
    const requestId = newId('req');
    const peer = Buffer.from(res.getRemoteAddressAsText()).toString();
    const ip = this.#ips.resolve(peer, headers['x-forwarded-for']);
    const pending: Pending = {
      aborted: false,
      done: false,
      route: 'unmatched',
      startedAt,
      dueAt: 0,
      res,
      ctx: null,
      def: null,
    };
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
    pending.ctx = ctx;

    if (repeated !== null) {
      // uWS frames the body by the first copy, so what follows it would be read as another
      // request (smuggling, RFC 9112 6.3 and 11.2): answer 400 and close. Not from inside this
      // callback: uWS (found on 20.30) would still parse a request pipelined behind this one and clear the
      // close. Answered on the next turn, the response is pending while the rest of the bytes
      // are parsed, and uWS drops the connection at any pipelined request instead of serving it.
      const refusal = duplicateHeader(repeated);
      setImmediate(() => this.#writeError(res, ctx, pending, refusal, true));
      return;
    }
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
      pending.def = route;
      const { authorizeDeadlineMs, requestDeadlineMs } = this.#deps.config;
      this.#deadlines.track(
        pending,
        route.onFault !== undefined ? authorizeDeadlineMs : (route.deadlineMs ?? requestDeadlineMs),
        performance.now(),
      );
      if (route.auth !== 'none') {
        const auth = await this.#deps.authenticator.authenticate(ctx, route);
        // The one check of who calls: the caller is the kind the route's auth mode admits, which
        // is what its handler's context is typed for (RequestContext<A>), so handlers read it as is.
        if (auth === null || auth.kind !== CALLER_KIND[route.auth]) throw new ApiError('unauthorized');
        (ctx as { auth: AuthContext | null }).auth = auth;
        if (auth.kind !== 'admin') {
          this.#deps.rateLimiter?.check(auth.credentialId, auth.clientId, performance.now());
          (ctx as { db: Sql | null }).db = this.#deps.dbs.forEnv(auth.environment);
        }
      }
      // From here the context holds what the route's auth mode promises (checked above).
      const typed = route as RouteFor<AuthMode>;
      assertStorableFields(ctx.params);
      assertStorableFields(ctx.query);
      if (route.body !== undefined) {
        const validator = getValidator(route.body);
        const body = parseBody(ctx, route);
        // A refused body answers the schema's errors and the route's cross-field ones together.
        if (!validator.check(body))
          throw validationError(schemaErrors(validator, body), typed.fieldErrors?.(ctx, body));
        ctx.body = body;
        const metadata = metadataPaths(route.body);
        if (metadata.length > 0) assertMetadataSize(ctx.body, metadata, this.#deps.config.metadataMaxBytes);
        // Every body, not only metadata: a free-form value nested thousands of levels deep
        // (POST /authorize's alternatives_considered) overflowed the stack of the structured
        // clone that carries it to its shard worker, and failed every request of that batch,
        // other tenants' too, with the safe decision. Refused here, naming the field.
        if (jsonTextDeeperThan(ctx.rawBody, MAX_JSON_DEPTH)) assertStorable(ctx.body);
        assertOwnPrincipal(ctx);
      }
      if (route.query !== undefined) validate(getValidator(route.query), ctx.query);
      const reply = await typed.handler(ctx);
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

  /**
   * The request's answer deadline passed before its handler answered: a route with onFault
   * (POST /authorize) answers its fault reply (the safe decision), any other 503 with
   * Retry-After. What the handler answers later is dropped (pending.done).
   */
  #expire(pending: Pending): void {
    const ctx = pending.ctx as RequestContext;
    const route = pending.def as RouteDef;
    if (route.onFault !== undefined) {
      try {
        this.#write(pending.res, ctx, pending, route.onFault(ctx, ANSWER_DEADLINE));
        return;
      } catch (err) {
        this.#deps.log.error({ err, request_id: ctx.requestId }, 'onFault failed');
      }
    }
    const err = new ApiError('service_unavailable', 'The service could not answer in time; retry shortly.', {
      headers: { 'retry-after': '1' },
    });
    this.#writeError(pending.res, ctx, pending, err, false);
  }

  #write(res: uWS.HttpResponse, ctx: RequestContext, pending: Pending, reply: Reply): void {
    if (pending.aborted || pending.done) return;
    const body =
      reply.rawBytes ??
      reply.rawJson ??
      (reply.body === undefined || reply.status === 204 ? '' : JSON.stringify(reply.body));
    res.cork(() => {
      res.writeStatus(STATUS_TEXT[reply.status] ?? String(reply.status));
      if (body.length > 0 && reply.headers?.['content-type'] === undefined) {
        res.writeHeader('content-type', 'application/json');
      }
      res.writeHeader('x-request-id', ctx.requestId);
      if (reply.headers !== undefined) for (const k in reply.headers) res.writeHeader(k, reply.headers[k] as string);
      // While draining, the answer closes its connection: the client sends nothing more on it.
      // A 304 has no body and no Content-Length of its own (RFC 9110 15.4.5).
      if (reply.status === 304 && !this.#draining) res.endWithoutBody();
      else res.end(body, this.#draining);
    });
    this.#finish(pending, ctx.method, reply.status);
    if (this.#deps.log.isLevelEnabled('debug')) {
      this.#deps.log.debug(
        { request_id: ctx.requestId, method: ctx.method, path: loggedPath(ctx, pending), status: reply.status },
        'request',
      );
    }
  }

  #writeError(res: uWS.HttpResponse, ctx: RequestContext, pending: Pending, err: unknown, close: boolean): void {
    const env = errorEnvelope(err, ctx.requestId, this.#deps.log);
    if (env.status >= 500 || this.#deps.log.isLevelEnabled('debug')) {
      this.#deps.log[env.status >= 500 ? 'error' : 'debug'](
        { request_id: ctx.requestId, method: ctx.method, path: loggedPath(ctx, pending), status: env.status },
        'request failed',
      );
    }
    if (pending.aborted || pending.done) return;
    res.cork(() => {
      res.writeStatus(STATUS_TEXT[env.status] ?? String(env.status));
      res.writeHeader('content-type', 'application/json');
      res.writeHeader('x-request-id', ctx.requestId);
      if (env.headers !== undefined) for (const k in env.headers) res.writeHeader(k, env.headers[k] as string);
      // No route takes HEAD, so its answers all pass here: a body after them would be read as
      // the start of the next response on the connection (RFC 9110 9.3.2). uWS (found on 20.30) leaves
      // the response pending when endWithoutBody is given a length, hence no Content-Length.
      // While draining, every answer closes its connection.
      const closing = close || this.#draining;
      if (ctx.method !== HEAD) res.end(env.body, closing);
      else if (closing) res.end('', true);
      else res.endWithoutBody();
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
  }
}

/** The path as logged: a route whose path carries a secret (secretPath) logs its template. */
function loggedPath(ctx: RequestContext, pending: Pending): string {
  return pending.def?.secretPath === true ? pending.route : ctx.path;
}

function parseQuery(qs: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (qs.length === 0) return out;
  for (const [k, v] of new URLSearchParams(qs)) out[k] = v;
  return out;
}

/** The validated-route body: strict UTF-8, JSON (or the form of /oauth/token), storable text. */
export function parseBody(ctx: Pick<RequestContext, 'rawBody' | 'headers'>, route: Pick<RouteDef, 'form'>): unknown {
  if (ctx.rawBody.length === 0) return {};
  const type = (ctx.headers['content-type'] ?? 'application/json').split(';')[0]?.trim().toLowerCase();
  const form = route.form === true && type === 'application/x-www-form-urlencoded';
  if (!form && type !== 'application/json' && !type?.endsWith('+json')) throw new ApiError('unsupported_media_type');
  let text: string;
  try {
    text = UTF8.decode(ctx.rawBody);
  } catch {
    throw new ApiError('invalid_json', 'The request body is not valid UTF-8.');
  }
  if (form) {
    const fields = Object.fromEntries(new URLSearchParams(text));
    assertStorableFields(fields);
    return fields;
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ApiError('invalid_json');
  }
  // Why only then: JSON refuses a raw U+0000 (control characters must be escaped) and strict
  // UTF-8 decoding refuses an encoded surrogate, so both can only arrive as a \u escape. The
  // /authorize hot path pays one scan of the text, not a walk of the document.
  if (text.indexOf('\\u') !== -1) assertStorableText(body);
  return body;
}

function duplicateHeader(name: string): ApiError {
  return new ApiError('bad_request', `The request carries more than one ${name} header.`, {
    details: [{ field: name, code: 'duplicate_header', message: 'must appear at most once' }],
  });
}

/**
 * One rule for ids in bodies: a body may name only the Principal that the path names or, where
 * the path names none, the Principal whose credential calls (docs/auth.md "Ids in bodies").
 * Naming another is refused 403 forbidden before the handler runs, on every route alike; naming
 * the same one (a GET answer sent back as a PUT body) is accepted.
 */
function assertOwnPrincipal(ctx: RequestContext): void {
  const body = ctx.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return;
  const named = (body as Record<string, unknown>).principal_id;
  if (named === undefined) return;
  const own = ctx.params.principal_id ?? (ctx.auth?.kind === 'principal' ? ctx.auth.principalId : undefined);
  if (own !== undefined && named !== own) {
    throw new ApiError('forbidden', "principal_id must be the caller's own Principal.");
  }
}
