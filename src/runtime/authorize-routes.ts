// POST /api/v1/authorize and the authorization log (SPEC.md "Authorization (Principal)").
// The edge has authenticated the Principal and validated the body against
// schemas/AuthorizeRequest.json; this handler applies the cross-field rules, normalises the
// request (exact amount, alpha-3 country, agent_did -> agent id) and hands it to the decision
// engine. POST /authorize never answers 5xx: any fault around the engine becomes the safe
// decision (DECLINE, system_unavailable). POST /authorize/explain takes the same body on the
// same path to the agent's actor, which answers a dry run (src/decision/explain.ts).
import { performance } from 'node:perf_hooks';
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { type AuthorizationEntry, entryFromDb, type StoredAuthorization } from '../audit/entry.js';
import { recordSecurityEvent } from '../audit/security-log.js';
import { assertOwnAgent, boundAgent } from '../auth/agent-keys.js';
import type { AuthContext, PrincipalAuth } from '../auth/types.js';
import type { AuthorizeRequest, DecisionEngine } from '../decision/model/contract.js';
import { type DecisionReply, finishReply, toReply } from '../decision/model/reply.js';
import { safeDecision } from '../decision/model/safe-decision.js';
import { serverTiming } from '../decision/model/timing.js';
import { toAlpha3 } from '../domain/country.js';
import { currencyExponent } from '../domain/currency.js';
import type { Environment } from '../domain/environment.js';
import { formatAmount, fromDb, parseAmount, readAmount, SCALE, toJsonNumber } from '../domain/money.js';
import { isDeadline } from '../errors/deadline.js';
import { ApiError, type ErrorDetail } from '../errors/registry.js';
import { decodeCursor, encodeCursor } from '../http/cursor.js';
import type { TenantShares } from '../http/fair-share.js';
import { amountText } from '../http/json-source.js';
import { RateLimiter } from '../http/rate-limit.js';
import { json, type Reply, type RequestContext, type RouteDef } from '../http/types.js';
import type { Databases, Sql } from '../storage/db.js';
import type { AgentRow } from '../storage/rows/agents.js';
import type { AuthorizationRow } from '../storage/rows/authorizations.js';

export interface AuthorizeRouteDeps {
  readonly engine: DecisionEngine;
  readonly dbs: Databases;
  readonly log: Logger;
  /** Called for every answered decision (metrics): its decision, gates and seconds since receipt. */
  readonly onDecision?: (decision: string, gatesFired: readonly string[], seconds: number) => void;
  /** Called for every dry run (metrics): what it disclosed, or `refused` over the dry-run limit. */
  readonly onDryRun?: (disclosure: 'full' | 'verdict' | 'refused') => void;
  /**
   * Fair share of this instance's decisions in flight between Clients and Principals
   * (FAIR_SHARE_IN_FLIGHT; src/http/fair-share.ts); absent: none.
   */
  readonly fairShare?: TenantShares | null;
  /** Called for every request refused by fair share (metrics), with the level that refused it. */
  readonly onFairShareRefused?: (level: 'client' | 'principal') => void;
}

/** Retry-After of a fair-share refusal: the in-flight work it waits for drains within a second. */
const FAIR_SHARE_RETRY_AFTER = { 'retry-after': '1' } as const;

/**
 * Dry runs of a narrower credential (docs/security.md "Decisions"): even the verdict alone lets
 * a compromised agent search for the largest amount that passes, so such a credential gets one
 * dry run a second (ten at once) on its own bucket, besides the /authorize bucket both share.
 * The full credential is not bound by it.
 */
export const NARROW_DRY_RUNS_PER_SECOND = 1;
export const NARROW_DRY_RUN_BURST = 10;

/** The body as validated by schemas/AuthorizeRequest.json (defaults applied). */
interface AuthorizeBody {
  agent_id?: string;
  agent_did?: string;
  amount: string | number;
  currency: string;
  merchant_name?: string;
  merchant_id?: string;
  merchant?: string;
  mcc?: string;
  country?: string;
  intent_context: {
    intent_type?: string;
    task_reference?: string;
    task?: string;
    reasoning_summary?: string;
    reasoning?: string;
    confidence?: number;
    alternatives_considered?: unknown[];
  };
  session_id?: string;
  rail: 'CARD' | 'CRYPTO';
  crypto?: { chain?: string; asset?: string; counterparty?: string };
  idempotency_key?: string;
  step_up_confirmed: boolean;
  capture_method?: 'automatic' | 'manual';
}

const AMOUNT_PATH = ['amount'];
/** Headers of an idempotent replay (one frozen object: nothing allocated per request). */
const REPLAYED: Readonly<Record<string, string>> = Object.freeze({ 'idempotent-replayed': 'true' });
const DEFAULT_LOG_LIMIT = 50;
const MAX_LOG_LIMIT = 200;

/**
 * Cross-field rules the schema cannot express with clear messages, over a body of any shape
 * (each field's type is checked: the edge also runs them on a body the schema refused, so that
 * one answer lists every mistake). Returns the amount's exact units, or null after adding why.
 */
function amountUnits(
  ctx: RequestContext,
  body: Readonly<Record<string, unknown>>,
  details: ErrorDetail[],
): bigint | null {
  const amount = body.amount;
  // A string amount is read as it is; only a JSON number goes back to the raw body for the text
  // the client wrote (a binary float would turn 1e-7 into an approvable amount).
  const text =
    typeof amount === 'string'
      ? amount
      : typeof amount === 'number'
        ? amountText(ctx.rawBody, amount, AMOUNT_PATH)
        : undefined;
  if (text === undefined) return null; // missing or mistyped: the schema says so
  const currency = typeof body.currency === 'string' ? body.currency : 'USD';
  const units =
    text === null
      ? 'must be a decimal amount within range'
      : readAmount(text, currencyExponent(currency) ?? SCALE, currency);
  if (typeof units === 'string') details.push({ field: 'amount', code: 'invalid_amount', message: units });
  else if (units <= 0n) details.push({ field: 'amount', code: 'invalid_amount', message: 'must be greater than 0' });
  else return units;
  return null;
}

function countryOf(body: Readonly<Record<string, unknown>>, details: ErrorDetail[]): string | null {
  if (typeof body.country !== 'string') return null;
  const country = toAlpha3(body.country);
  if (country === null) {
    details.push({
      field: 'country',
      code: 'invalid_country',
      message: 'is not an ISO 3166-1 alpha-2 or alpha-3 country code (e.g. US or USA)',
    });
  }
  return country;
}

function presenceErrors(body: Readonly<Record<string, unknown>>, details: ErrorDetail[]): void {
  if (body.agent_id === undefined && body.agent_did === undefined) {
    details.push({ field: 'agent_id', code: 'required', message: 'is required (or agent_did)' });
  }
  const intent = body.intent_context;
  if (intent !== null && typeof intent === 'object' && !Array.isArray(intent)) {
    const i = intent as Record<string, unknown>;
    if (i.task_reference === undefined && i.task === undefined) {
      details.push({ field: 'intent_context.task_reference', code: 'required', message: 'is required (or task)' });
    }
    if (i.intent_type === undefined && i.task_reference !== undefined) {
      details.push({ field: 'intent_context.intent_type', code: 'required', message: 'is required' });
    }
  }
  if (body.rail === 'CRYPTO' && body.crypto === undefined) {
    details.push({ field: 'crypto', code: 'required', message: 'is required when rail is CRYPTO' });
  }
}

/** The cross-field errors of a body the schema refused (RouteDef.fieldErrors). */
function authorizeFieldErrors(ctx: RequestContext, body: unknown): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return details;
  const b = body as Record<string, unknown>;
  presenceErrors(b, details);
  amountUnits(ctx, b, details);
  countryOf(b, details);
  return details;
}

/** Applies the cross-field rules and returns the normalised request (built once, in its final
 * shape; an agent_did is resolved into agentId afterwards). */
function buildRequest(ctx: RequestContext, auth: PrincipalAuth, body: AuthorizeBody): AuthorizeRequest {
  const details: ErrorDetail[] = [];
  const fields = body as unknown as Readonly<Record<string, unknown>>;
  presenceErrors(fields, details);
  const units = amountUnits(ctx, fields, details);
  const country = countryOf(fields, details);
  if (details.length > 0) throw new ApiError('validation_error', 'The request failed validation.', { details });
  const intent = body.intent_context;
  const taskReference = intent.task_reference ?? intent.task;
  return {
    requestId: ctx.requestId,
    environment: auth.environment,
    clientId: auth.clientId,
    principalId: auth.principalId,
    agentId: body.agent_id ?? '',
    amount: formatAmount(units as bigint, 0),
    currency: body.currency,
    merchantName: body.merchant_name ?? body.merchant ?? null,
    merchantId: body.merchant_id ?? null,
    mcc: body.mcc ?? null,
    country,
    rail: body.rail,
    crypto: body.crypto ?? null,
    intent: {
      // The alternative description ({task, reasoning, confidence}) carries no intent type.
      intentType: intent.intent_type ?? 'unspecified',
      taskReference: taskReference as string,
      reasoningSummary: intent.reasoning_summary ?? intent.reasoning ?? null,
      confidence: intent.confidence ?? null,
      alternativesConsidered: intent.alternatives_considered ?? null,
    },
    sessionId: body.session_id ?? null,
    idempotencyKey: body.idempotency_key ?? null,
    stepUpConfirmed: body.step_up_confirmed,
    captureMethod: body.capture_method ?? 'automatic',
    // The engine's deadlines count from receipt at the edge (authentication included), as the
    // edge's answer deadline does (AUTHORIZE_DEADLINE_MS).
    receivedAtMs: Date.now() - (performance.now() - ctx.startedAt),
  };
}

/**
 * agent_did -> agent id within the caller's Client, cached. A DID is unique per Client only
 * (migration 0090), so the lookup and the cache key both carry the Client: another tenant's
 * agent with the same DID is never found. An agent's DID never changes, and agents are not
 * deleted, so a cached answer stays true.
 */
class DidResolver {
  readonly #cache = new LRUCache<string, { agentId: string; principalId: string }>({ max: 10_000 });

  async resolve(
    sql: Sql,
    env: Environment,
    clientId: string,
    did: string,
  ): Promise<{ agentId: string; principalId: string } | null> {
    const key = `${env} ${clientId} ${did}`;
    const hit = this.#cache.get(key);
    if (hit !== undefined) return hit;
    const rows = await sql<Pick<AgentRow, 'id' | 'principal_id'>[]>`
      select id, principal_id from agents where client_id = ${clientId} and did = ${did}`;
    const row = rows[0];
    if (row === undefined) return null;
    const value = { agentId: row.id, principalId: row.principal_id };
    this.#cache.set(key, value);
    return value;
  }
}

function roundMs(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/**
 * What the safe decision echoes when the fault came before the body was validated (e.g. the
 * credential store was unreachable): the body's own agent_id, amount and currency if readable.
 */
function faultEcho(ctx: RequestContext): Pick<AuthorizeRequest, 'agentId' | 'amount' | 'currency'> {
  let body: Record<string, unknown> = {};
  if (ctx.body !== undefined && ctx.body !== null && typeof ctx.body === 'object') {
    body = ctx.body as Record<string, unknown>;
  } else {
    try {
      const parsed: unknown = JSON.parse(ctx.rawBody.toString('utf8'));
      if (parsed !== null && typeof parsed === 'object') body = parsed as Record<string, unknown>;
    } catch {
      // not JSON: nothing to echo
    }
  }
  const units = parseAmount(body.amount);
  return {
    agentId: typeof body.agent_id === 'string' ? body.agent_id.slice(0, 128) : '',
    amount: units === null ? '0' : formatAmount(units, 0),
    currency: typeof body.currency === 'string' && /^[A-Z]{3}$/.test(body.currency) ? body.currency : 'USD',
  };
}

/**
 * What a dry run may tell its caller (docs/security.md "The dry run"). The margins, scores,
 * thresholds, caps and limits of POST /authorize/explain would let a compromised agent search
 * for the largest amount that passes, so only the Principal's full credential (a key or token
 * without scopes) gets them (`disclosure: "full"`); a narrower credential, such as an agent's
 * `authorize` key, gets the verdict and its reason codes (`disclosure: "verdict"`).
 */
const VERDICT_FIELDS = [
  'authorization_id',
  'decision',
  'reason_codes',
  'agent_id',
  'amount',
  'currency',
  'dry_run',
  'processing_time_ms',
  'timestamp',
] as const;

export function fullDisclosure(auth: AuthContext | null): boolean {
  return auth !== null && auth.kind === 'principal' && auth.scopes.length === 0 && auth.agentId === undefined;
}

/** Keeps each JSON number as its source text (amounts keep their exact digits when written again). */
const rawNumbers = ((_key: string, value: unknown, context: { source?: string }) =>
  typeof value === 'number' && context.source !== undefined
    ? (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON(context.source)
    : value) as (key: string, value: unknown) => unknown;

/**
 * The scores of POST /authorize that an agent key does not get (set to null, as SPEC allows each
 * of them): like the dry run's margins, they would tell a compromised agent how close a
 * purchase came to a threshold. The verdict, reason codes, risk signals, severity and the
 * mandate's own usage and limits stay (the agent may know what it may spend).
 */
const AGENT_WITHHELD = ['risk_score', 'kya_score', 'trust_score', 'intent_anomaly_score', 'cognitive_limit_multiplier'];

/** Sets the scores an agent key does not get to null in a decision's answer (also POST /authorize/ap2's). */
export function withholdAgentScores(body: Record<string, unknown>): void {
  for (const k of AGENT_WITHHELD) if (k in body) body[k] = null;
  const risk = body.risk_assessment as Record<string, unknown> | null | undefined;
  if (risk !== null && typeof risk === 'object' && 'score' in risk) risk.score = null;
}

/** An agent key's POST /authorize answer: the scores withheld (not the hot path: agent keys only). */
function agentKeyBody(rawJson: string): string {
  const body = JSON.parse(rawJson, rawNumbers) as Record<string, unknown>;
  withholdAgentScores(body);
  return JSON.stringify(body);
}

function dryRunBody(ctx: RequestContext, rawJson: string): string {
  // Dry runs are not the hot path: the answer is parsed and written again.
  const full = JSON.parse(rawJson, rawNumbers) as Record<string, unknown>;
  if (fullDisclosure(ctx.auth)) {
    full.disclosure = 'full';
    return JSON.stringify(full);
  }
  const verdict: Record<string, unknown> = {};
  for (const k of VERDICT_FIELDS) verdict[k] = full[k];
  verdict.disclosure = 'verdict';
  return JSON.stringify(verdict);
}

/** Read paths: a database fault is 503 service_unavailable, not an anonymous 500. */
async function reading<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw new ApiError('service_unavailable', undefined, { cause: err });
  }
}

export function authorizeRoutes(deps: AuthorizeRouteDeps): RouteDef[] {
  const dids = new DidResolver();
  const { engine, log } = deps;

  const onDecision = deps.onDecision ?? null;
  const onDryRun = deps.onDryRun ?? null;
  const narrowDryRuns = new RateLimiter({
    requestsPerSecond: NARROW_DRY_RUNS_PER_SECOND,
    burstRequests: NARROW_DRY_RUN_BURST,
    policyName: 'dry-run',
  });
  const shares = deps.fairShare ?? null;

  /**
   * The end of a wait for a fair-share slot (src/http/fair-share.ts): nothing when the slot was
   * given, else 429 naming the level whose queue was full or whose wait ran out.
   */
  function refuseShare(refusedBy: 'client' | 'principal' | null): void {
    if (refusedBy === null) return;
    deps.onFairShareRefused?.(refusedBy);
    throw new ApiError(
      'rate_limited',
      `The service is busy and this ${refusedBy === 'client' ? 'Client' : 'Principal'} already has its share of the decisions in flight and waiting; retry after the indicated delay.`,
      { headers: FAIR_SHARE_RETRY_AFTER },
    );
  }

  /**
   * Requests answered by onFault (e.g. at the answer deadline while the handler still runs):
   * the handler's own later answer is dropped by the edge and must not count as a decision.
   */
  const faulted = new WeakSet<RequestContext>();

  /**
   * 200 with the decision's pre-serialised body and this request's own processing time; with
   * `engineAt` (when the request was handed to the engine), the Server-Timing header of
   * /authorize (src/decision/model/timing.ts).
   */
  function answer(ctx: RequestContext, reply: DecisionReply, dryRun = false, engineAt = 0): Reply {
    const now = performance.now();
    const ms = now - ctx.startedAt;
    if (!faulted.has(ctx) && !dryRun) onDecision?.(reply.decision, reply.gatesFired, ms / 1000);
    const finished = finishReply(reply, roundMs(ms));
    const rawJson = dryRun
      ? dryRunBody(ctx, finished)
      : boundAgent(ctx.auth) !== null
        ? agentKeyBody(finished)
        : finished;
    if (engineAt === 0 || dryRun) {
      return reply.replayed
        ? { status: 200, rawJson, headers: REPLAYED as Record<string, string> }
        : { status: 200, rawJson };
    }
    const timing = serverTiming(engineAt - ctx.startedAt, now - engineAt, reply.timing, reply.shardMs ?? 0, ms);
    return {
      status: 200,
      rawJson,
      headers: reply.replayed
        ? { 'idempotent-replayed': 'true', 'server-timing': timing }
        : { 'server-timing': timing },
    };
  }

  /** The security-log record of one dry run, in the caller's environment's database. */
  async function auditDryRun(
    ctx: RequestContext<'principal'>,
    request: AuthorizeRequest,
    reply: DecisionReply,
  ): Promise<void> {
    await recordSecurityEvent(ctx.db, ctx, {
      action: 'authorization.dry_run',
      targetType: 'agent',
      targetId: request.agentId,
      changes: {
        amount: formatAmount(parseAmount(request.amount) ?? 0n),
        currency: request.currency,
        merchant: request.merchantId ?? request.merchantName,
        decision: reply.decision,
        disclosure: fullDisclosure(ctx.auth) ? 'full' : 'verdict',
      },
    });
  }

  /** POST /authorize, or with `dryRun` POST /authorize/explain (the same path to the owning actor). */
  async function authorize(ctx: RequestContext<'principal'>, dryRun = false): Promise<Reply> {
    const auth = ctx.auth;
    const body = ctx.body as AuthorizeBody;
    let request = buildRequest(ctx, auth, body);
    if (dryRun) request = { ...request, dryRun };
    let reply: DecisionReply;
    let engineAt = 0;
    try {
      // An agent key decides for its own agent only: any other, by id or DID, is 403 whether or
      // not it exists (docs/auth.md "Agent keys").
      const bound = boundAgent(auth);
      if (bound !== null && body.agent_id !== undefined) assertOwnAgent(auth, body.agent_id);
      if (body.agent_id === undefined) {
        const found = await dids.resolve(ctx.db, auth.environment, auth.clientId, body.agent_did as string);
        if (bound !== null) assertOwnAgent(auth, found?.principalId === auth.principalId ? found.agentId : '');
        if (found === null || found.principalId !== auth.principalId) throw new ApiError('agent_not_found');
        request = { ...request, agentId: found.agentId };
      }
      // A fair-share slot of the caller's Client and Principal, at once unless the instance is
      // busy and the caller already holds its share; given back once the engine answers.
      const waiting = shares?.take(auth.clientId, auth.principalId) ?? null;
      if (waiting !== null) refuseShare(await waiting);
      engineAt = performance.now();
      try {
        reply = await engine.authorize(request);
      } finally {
        shares?.release(auth.clientId, auth.principalId);
      }
      // Every dry run is audited before it answers: who asked what of which agent, and the
      // verdict it got (docs/security.md "The dry run"). No record, no answer (onFault).
      if (dryRun) await auditDryRun(ctx, request, reply);
    } catch (err) {
      // agent_not_found, idempotency_key_reuse / _expired: answers about the request, not faults.
      if (err instanceof ApiError && err.status < 500) throw err;
      log.error({ err, request_id: ctx.requestId }, 'authorize fault; answering the safe decision');
      reply = toReply(safeDecision(request));
    }
    // This request's own time, also on an idempotent replay (the decision itself is replayed unchanged).
    return answer(ctx, reply, dryRun, engineAt);
  }

  return [
    {
      method: 'POST',
      path: '/api/v1/authorize',
      auth: 'principal',
      body: 'AuthorizeRequest',
      response: 'AuthorizeResponse',
      successStatus: 200,
      operationId: 'authorize',
      agentKey: 'handler',
      summary: 'Decide a transaction an agent attempts (APPROVE, DECLINE or STEP_UP)',
      fieldErrors: authorizeFieldErrors,
      handler: authorize,
      onFault: (ctx, err) => {
        // The answer deadline passed (the edge's backstop: the engine or a dependency was slow):
        // expected while the database is slow or away, a warning; anything else is a fault.
        if (isDeadline(err))
          log.warn({ request_id: ctx.requestId }, 'answer deadline passed; answering the safe decision');
        else log.error({ err, request_id: ctx.requestId }, 'authorize fault; answering the safe decision');
        const reply = answer(ctx, toReply(safeDecision(faultEcho(ctx))));
        faulted.add(ctx);
        return reply;
      },
    },
    {
      method: 'POST',
      path: '/api/v1/authorize/explain',
      auth: 'principal',
      body: 'AuthorizeRequest',
      response: 'ExplainResponse',
      successStatus: 200,
      operationId: 'explainAuthorization',
      agentKey: 'handler',
      summary:
        'Dry run: the decision /authorize would give now, with each gate score, threshold and margin, the limits and caps (records nothing)',
      fieldErrors: authorizeFieldErrors,
      handler: (ctx) => {
        const full = fullDisclosure(ctx.auth);
        if (!full) {
          const credentialId = ctx.auth.credentialId;
          const verdict = narrowDryRuns.take(credentialId, performance.now());
          if (!verdict.allowed) {
            onDryRun?.('refused');
            log.info(
              { request_id: ctx.requestId, credential_id: credentialId },
              'dry run refused: over the narrower credential dry-run limit',
            );
            throw new ApiError('rate_limited', undefined, { headers: narrowDryRuns.headers(verdict) });
          }
        }
        onDryRun?.(full ? 'full' : 'verdict');
        return authorize(ctx, true);
      },
      onFault: (ctx, err) => {
        log.error({ err, request_id: ctx.requestId }, 'explain fault; answering the safe decision');
        const reply = answer(ctx, toReply(safeDecision({ ...faultEcho(ctx), dryRun: true })), true);
        faulted.add(ctx);
        return reply;
      },
    },
    {
      method: 'GET',
      path: '/api/v1/authorize/log/:authorization_id',
      auth: 'principal',
      response: 'AuthorizationLogEntry',
      operationId: 'getAuthorizationLogEntry',
      summary: 'One authorization audit log entry of the calling Principal',
      handler: async (ctx) => {
        const { auth, db: sql } = ctx;
        const id = ctx.params.authorization_id as string;
        const rows = await reading(
          () => sql<StoredAuthorization[]>`
            select a.id, a.agent_id, a.mandate_id, a.amount, a.currency, a.mcc, a.merchant_id, a.country, a.decision,
              a.reason_codes, a.kya_score, a.trust_level, a.processing_time_ms, a.created_at, a.explanation,
              a.capture_method, h.status as hold_status, a.shadow
            from authorizations a left join holds h on h.authorization_id = a.id
            where a.id = ${id} and a.principal_id = ${auth.principalId}`,
        );
        const row = rows[0];
        if (row === undefined) throw new ApiError('authorization_not_found');
        const entry: AuthorizationEntry = entryFromDb(row);
        // What decided it (migration 0120): features, gate scores, thresholds version;
        // next to the decision, what the Principal's shadow thresholds decided (migration 0241).
        const shadow = row.shadow ?? null;
        const body: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(entry)) {
          body[k] = v;
          if (k !== 'decision') continue;
          body.shadow_decision = shadow?.decision ?? null;
          body.shadow_gates_fired = shadow?.gates_fired ?? null;
          body.shadow_thresholds_version = shadow?.thresholds_version ?? null;
        }
        body.explanation = row.explanation ?? null;
        return json(200, body);
      },
    },
    {
      method: 'GET',
      path: '/api/v1/authorize/log/agent/:agent_id',
      auth: 'principal',
      // Its items carry no score or explanation (id, decision, amount, currency, time), so an
      // agent key may read its own agent's (the MCP server's recent-decisions resource).
      agentKey: 'path',
      query: 'AuthorizationLogQuery',
      response: 'AuthorizationLogPage',
      operationId: 'listAgentAuthorizationLog',
      summary: "An agent's authorization log, newest first, cursor-paged",
      handler: async (ctx) => {
        const { auth, db: sql } = ctx;
        const agentId = ctx.params.agent_id as string;
        const limit =
          ctx.query.limit === undefined ? DEFAULT_LOG_LIMIT : Math.min(Number(ctx.query.limit), MAX_LOG_LIMIT);
        const after = ctx.query.cursor === undefined ? null : decodeCursor(ctx.query.cursor, 'auth_');
        const owner = await reading(
          () => sql<Pick<AgentRow, 'principal_id'>[]>`select principal_id from agents where id = ${agentId}`,
        );
        if (owner[0]?.principal_id !== auth.principalId) throw new ApiError('agent_not_found');
        // By the agent alone (its rows are its Principal's, checked above), on the agent's index:
        // with principal_id too, PostgreSQL's estimates on a fast-growing table chose to AND both
        // indexes, reading every row of the Principal (270 ms at 120,000 rows), which in the
        // 30-minute soak took the database down with it.
        const rows = await reading(
          () => sql<(Pick<AuthorizationRow, 'id' | 'decision' | 'amount' | 'currency'> & { ts: string })[]>`
            select id, decision, amount, currency,
              to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as ts
            from authorizations
            where agent_id = ${agentId}
              ${after === null ? sql`` : sql`and (created_at, id) < (${after.ts}::timestamptz, ${after.id})`}
            order by created_at desc, id desc
            limit ${limit + 1}`,
        );
        const page = rows.length > limit ? rows.slice(0, limit) : rows;
        const last = page[page.length - 1];
        return json(200, {
          items: page.map((r) => ({
            id: r.id,
            decision: r.decision,
            amount: toJsonNumber(fromDb(r.amount) as bigint),
            currency: r.currency,
            // Millisecond ISO form like every other timestamp; the cursor keeps microseconds.
            created_at: new Date(r.ts).toISOString(),
          })),
          next_cursor: rows.length > limit && last !== undefined ? encodeCursor(last.ts, last.id) : null,
        });
      },
    },
  ];
}
