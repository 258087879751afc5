// The contract between the HTTP edge and the handlers of every area: a route declares its
// method, path, credential plane and schemas; its handler gets a RequestContext typed by the
// route's credential plane and returns a Reply or throws an ApiError.
import type { AdminAuth, AuthContext, ClientAuth, PrincipalAuth } from '../auth/types.js';
import type { ErrorCode, ErrorDetail } from '../errors/registry.js';
import type { Sql } from '../storage/db.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Which credential a route takes (SPEC.md "Which credential for which group").
 * - none: public
 * - admin: X-Admin-Key (operator plane)
 * - client: Client API key
 * - principal: Principal API key or OAuth2 Bearer token
 * - principal_key: Principal API key only (webhook management)
 */
export type AuthMode = 'none' | 'admin' | 'client' | 'principal' | 'principal_key';

/**
 * The caller the edge lets through to a route of each auth mode: the authenticator answers that
 * kind or refuses the request, and the edge checks it once (src/http/server.ts), so a handler
 * reads its caller without checking it again.
 */
export interface AuthOf {
  none: null;
  admin: AdminAuth;
  client: ClientAuth;
  principal: PrincipalAuth;
  principal_key: PrincipalAuth;
}

/** The database of the caller's environment, set for the credentials that carry one. */
export interface DbOf {
  none: null;
  admin: null;
  client: Sql;
  principal: Sql;
  principal_key: Sql;
}

/**
 * A request as its handler sees it. `RequestContext<'principal'>` is a route's of auth mode
 * 'principal' (its caller a PrincipalAuth, its database set); `RequestContext` (every mode) is
 * what code sees before authentication or whatever the route (the edge, onFault).
 */
export interface RequestContext<A extends AuthMode = AuthMode> {
  readonly requestId: string;
  readonly method: HttpMethod;
  /** Path without the query string, e.g. /api/v1/principals/prn_x/agents. */
  readonly path: string;
  readonly params: Readonly<Record<string, string>>;
  /** Query parameters (last value wins). */
  readonly query: Readonly<Record<string, string>>;
  /** Request headers with lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  /** Client address resolved through TRUSTED_PROXIES. */
  readonly ip: string;
  readonly rawBody: Buffer;
  /** Parsed and schema-validated body (defaults applied); undefined without a body. */
  body: unknown;
  /** Who is calling, set by the edge once it has authenticated the request (null before). */
  readonly auth: AuthOf[A];
  /** The database of the credential's environment, set by the edge with `auth`. */
  readonly db: DbOf[A];
  /** Monotonic start time (performance.now()), for processing_time_ms. */
  readonly startedAt: number;
}

export interface Reply {
  status: number;
  /** JSON-serialised unless it is a string already serialised by the handler (rawJson). */
  body?: unknown;
  rawJson?: string;
  /** A body already encoded (e.g. a gzip-compressed asset), sent as these bytes. */
  rawBytes?: Uint8Array;
  headers?: Record<string, string>;
}

/** A route of one auth mode: its handler and field rules get the context of that mode. */
export interface RouteFor<A extends AuthMode> {
  method: HttpMethod;
  /** Path with :params, e.g. /api/v1/principals/:principal_id/agents. */
  path: string;
  auth: A;
  /** Name of the schema (schemas/<name>.json) validating the JSON body. */
  body?: string;
  /** The body may be left out (an empty body is `{}`); documents requestBody as not required. */
  bodyOptional?: boolean;
  /** Takes an Idempotency-Key header (documented in OpenAPI). */
  idempotencyKey?: boolean;
  /** Name of the schema validating the query parameters (values are strings). */
  query?: string;
  /** Name of the schema describing the success response (documentation, OpenAPI). */
  response?: string;
  /** Success status, for the OpenAPI document. */
  successStatus?: number;
  /** One line for the OpenAPI document. */
  summary: string;
  /**
   * The operation's name in the OpenAPI document, a camelCase verb phrase (`createAgent`), from
   * which client generators name their methods: every public route has one, unique, and it does
   * not change once published.
   */
  operationId?: string;
  /**
   * Error codes the handler answers besides those the edge answers on every route of its kind
   * (src/app/openapi.ts errorCodes), for the OpenAPI document.
   */
  errors?: readonly ErrorCode[];
  /**
   * Whether an agent key (a Principal credential bound to one agent, docs/auth.md "Agent keys")
   * may call this route: `path`, when the path's :agent_id is its agent; `handler`, when the
   * handler checks that what it acts on is its agent's (src/auth/agent-keys.ts). Absent: 403.
   */
  agentKey?: 'path' | 'handler';
  /** Excluded from the public OpenAPI document (operator plane). */
  internal?: boolean;
  /**
   * The path itself is a credential (the step-up confirmation link's token): logs name the
   * route's template, never the path.
   */
  secretPath?: boolean;
  /** Also accepts application/x-www-form-urlencoded bodies (only /oauth/token). */
  form?: boolean;
  /**
   * The route's cross-field rules over a body the schema refused (any shape: check types), so
   * that one answer lists the schema's errors and these together; fields the schema already
   * named are not repeated. On a body the schema passed, the handler applies them itself.
   */
  fieldErrors?: (ctx: RequestContext<A>, body: unknown) => ErrorDetail[];
  handler: (ctx: RequestContext<A>) => Reply | Promise<Reply>;
  /**
   * The reply for an unexpected fault anywhere in the request (authentication included, so its
   * context may have no caller yet; any error but a 4xx ApiError), in place of the 5xx envelope.
   * POST /authorize answers its safe decision (SPEC.md rule 6: it never answers 500).
   */
  onFault?: (ctx: RequestContext, err: unknown) => Reply;
  /**
   * This route's answer deadline in milliseconds, in place of REQUEST_DEADLINE_MS (a route that
   * waits on an outbound call of its own). A route with onFault uses AUTHORIZE_DEADLINE_MS.
   */
  deadlineMs?: number;
}

/**
 * A route of any of the modes in `A` (every mode by default): a union by `auth`, so a route
 * written in a `RouteDef[]` gets its handler's context from its own `auth`.
 */
export type RouteDef<A extends AuthMode = AuthMode> = { [M in A]: RouteFor<M> }[A];

export function json(status: number, body: unknown, headers?: Record<string, string>): Reply {
  return headers === undefined ? { status, body } : { status, body, headers };
}

/**
 * Authenticates a request for a route; throws ApiError (401 unauthorized, 403 forbidden) or
 * returns who the caller is: the kind `AuthOf` names for the route's auth mode. Implemented in
 * src/auth/authenticator.ts; the edge's port to it.
 */
export interface Authenticator {
  authenticate(ctx: RequestContext, route: RouteDef): Promise<AuthContext | null>;
}
