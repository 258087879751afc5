// Portable mandates (docs/ap2.md): AP2 open Payment Mandates imported as an agent's mandate,
// closed Payment Mandates presented with an authorization and consumed exactly once, the status
// of a mandate by its hash, and signed remaining-budget statements.
//
//   PUT/GET /api/v1/principals/{principal_id}/ap2-issuer-keys   (Client) the issuer JWKS
//   POST    /api/v1/agents/{agent_id}/ap2-mandates               (Principal) import
//   POST    /api/v1/authorize/ap2                                (Principal) present and decide
//   GET     /api/v1/ap2-mandates/{hash}                          (Principal) status by hash
//   GET     /api/v1/mandates/{mandate_id}/budget-statement       (Principal) signed statement
//
// A refusal stores nothing and spends nothing: verification runs before any write, the import's
// writes are one transaction, and a presentation's claim (the row whose primary key makes it
// once only) is removed again unless the decision is an APPROVE. Each import, consumption and
// refusal is an event through the outbox.
import { performance } from 'node:perf_hooks';
import type { JWK } from 'jose';
import type postgres from 'postgres';
import type { Services } from '../app/services.js';
import { assertOwnAgent, boundAgent } from '../auth/agent-keys.js';
import type { PrincipalAuth } from '../auth/types.js';
import type { AuthorizeRequest } from '../decision/model/contract.js';
import { type DecisionReply, finishReply, toReply } from '../decision/model/reply.js';
import { safeDecision } from '../decision/model/safe-decision.js';
import { toAlpha3 } from '../domain/country.js';
import { newId } from '../domain/ids.js';
import { runtimeMandateHash } from '../domain/mandate-hash.js';
import { formatAmount, fromDb, parseAmount, toDb, toJsonNumber } from '../domain/money.js';
import { ApiError } from '../errors/registry.js';
import { outboxEvent, writeOutbox } from '../events/outbox.js';
import { RateLimiter } from '../http/rate-limit.js';
import { json, type RequestContext, type RouteDef } from '../http/types.js';
import { isUniqueViolation } from '../onboarding/checks.js';
import type { Sql } from '../storage/db.js';
import type { AgentRow } from '../storage/rows/agents.js';
import { claimKey, consumeStale, type PresentationRow, recordedApprove, type StaleClaim } from './ap2-claims.js';
import {
  CLOSED_VCT,
  type ClosedMandate,
  type IssuerKey,
  issuerJwtHash,
  keyOf,
  mapConstraints,
  OPEN_VCT,
  splitChain,
  tokenHash,
  verifyClosedMandate,
  verifyOpenMandate,
} from './ap2-credential.js';
import {
  AP2_RECEIPT_TYP,
  AP2_STATUS_TYP,
  ap2Amount,
  ap2ErrorOf,
  BUDGET_STATEMENT_TYP,
  moneyText,
  signStatement,
} from './ap2-statements.js';
import { withholdAgentScores } from './authorize-routes.js';
import { bodyOf, idParam } from './context.js';
import { invalidateAgent } from './engine-handle.js';
import { assertMandateRoom, loadOwnedMandate, mandateView } from './mandate-store.js';
import { mandateUsage } from './mandate-usage.js';

/** Accepted issuer key types: public keys only. */
const KEY_TYPES: ReadonlySet<string> = new Set(['EC', 'OKP', 'RSA']);

interface Ap2MandateRow {
  mandate_id: string;
  agent_id: string;
  credential_hash: string;
  issuer_kid: string;
  cnf_jwk: JWK;
  cnf_thumbprint: string;
  reference: string | null;
  imported_at: Date;
}

function ap2View(row: Ap2MandateRow): Record<string, unknown> {
  return {
    vct: OPEN_VCT,
    credential_hash: row.credential_hash,
    issuer_kid: row.issuer_kid,
    cnf_jwk_thumbprint: row.cnf_thumbprint,
    reference: row.reference,
    imported_at: row.imported_at.toISOString(),
  };
}

async function ap2Row(db: Sql, mandateId: string): Promise<Ap2MandateRow | null> {
  const [row] = await db<Ap2MandateRow[]>`
    select mandate_id, agent_id, credential_hash, issuer_kid, cnf_jwk, cnf_thumbprint, reference, imported_at
    from ap2_mandates where mandate_id = ${mandateId}`;
  return row ?? null;
}

/** A refusal event (ap2_mandate.refused) in its own write: nothing else was stored. */
async function refused(
  db: Sql,
  auth: PrincipalAuth,
  data: {
    stage: 'import' | 'presentation';
    agent_id: string;
    error: string;
    message: string;
    credential_hash: string | null;
  },
): Promise<void> {
  await writeOutbox(db, [
    outboxEvent({ clientId: auth.clientId, principalId: auth.principalId }, 'ap2_mandate.refused', {
      ...data,
      ap2_error: ap2ErrorOf(data.error),
    }),
  ]);
}

/**
 * Runs `fn`; an ApiError it throws is recorded as a refusal event and answered as usual, with the
 * signed AP2 receipt of the refusal in the `AP2-Receipt` header (reference: the hash of the token
 * refused, when it parses; AP2's error code and the message).
 */
async function recordingRefusal<T>(
  services: Services,
  ctx: RequestContext<'principal'>,
  stage: 'import' | 'presentation',
  agentId: string,
  hashOf: () => string | null,
  fn: () => Promise<T>,
): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ApiError && err.status < 500 && err.code !== 'agent_not_found' && err.code !== 'forbidden') {
      const hash = hashOf();
      await refused(ctx.db, ctx.auth, {
        stage,
        agent_id: agentId,
        error: err.code,
        message: err.message,
        credential_hash: hash,
      });
      const receipt = await signStatement(services.auth.receipts, AP2_RECEIPT_TYP, ctx.auth.environment, {
        status: 'Error',
        result: 'error',
        reference: hash,
        error: ap2ErrorOf(err.code),
        error_description: err.message,
        error_code: err.code,
        stage,
      });
      throw new ApiError(err.code, err.message, {
        ...(err.details === undefined ? {} : { details: err.details }),
        headers: { ...(err.headers ?? {}), 'ap2-receipt': receipt },
      });
    }
    throw err;
  }
}

/** The safe DECLINE: nothing was decided, and its commit may be in doubt. */
function isSafeDecision(decision: Record<string, unknown>): boolean {
  const codes = decision.reason_codes;
  return Array.isArray(codes) && codes.includes('system_unavailable');
}

interface ClaimInput {
  readonly closed: ClosedMandate;
  readonly mandateId: string;
  readonly openHash: string;
  readonly principalId: string;
  readonly agentId: string;
  readonly requestId: string;
  readonly deadlineMs: number;
  readonly owner: { clientId: string; principalId: string };
}

function consumedError(was: PresentationRow): ApiError {
  return new ApiError(
    'ap2_mandate_already_consumed',
    `This closed Payment Mandate (or its transaction_id) was consumed by ${was.authorization_id ?? ''} at ${was.consumed_at?.toISOString() ?? ''}.`,
  );
}

/**
 * Claims a closed mandate for this request: inserts its PENDING row (unique by closed hash and by
 * (mandate, transaction_id)). A CONSUMED row is 409. A PENDING row younger than the answer
 * deadline is another request's decision in flight: 409, with Retry-After. An older one is
 * reconciled: if the authorizations table holds an APPROVE recorded under that claim's request
 * (idempotency_key ap2:<request_id>) it becomes CONSUMED (409), otherwise this request takes the
 * claim over. Each step is conditional on the row it read, so two reconcilers never both win.
 */
async function claimPresentation(db: Sql, c: ClaimInput): Promise<void> {
  const { closed } = c;
  const deadlineSeconds = c.deadlineMs / 1000;
  for (let attempt = 0; attempt < 5; attempt++) {
    const claimed = await db<{ closed_hash: string }[]>`
      insert into ap2_presentations (closed_hash, mandate_id, open_hash, transaction_id, principal_id, agent_id,
        status, amount, currency, payee_id, request_id, claimed_at)
      values (${closed.hash}, ${c.mandateId}, ${c.openHash}, ${closed.transactionId}, ${c.principalId},
        ${c.agentId}, 'PENDING', ${closed.amount}, ${closed.currency}, ${closed.payeeId}, ${c.requestId}, now())
      on conflict do nothing returning closed_hash`;
    if (claimed.length > 0) return;
    // claimed_stamp: the claim time as text at full precision (a Date, and postgres.js's timestamptz
    // parameters, keep milliseconds only), which with the request id names this claim in the
    // conditional updates below.
    const [was] = await db<(StaleClaim & { stale: boolean; wait_ms: number })[]>`
      select *, claimed_at::text as claimed_stamp, claimed_at <= now() - make_interval(secs => ${deadlineSeconds}) as stale,
        greatest(0, extract(epoch from (claimed_at + make_interval(secs => ${deadlineSeconds}) - now())) * 1000)::float8
          as wait_ms
      from ap2_presentations
      where closed_hash = ${closed.hash} or (mandate_id = ${c.mandateId} and transaction_id = ${closed.transactionId})
      order by (status = 'CONSUMED') desc limit 1`;
    if (was === undefined) continue; // settled (deleted) in between: claim again
    if (was.status === 'CONSUMED') throw consumedError(was);
    if (!was.stale) {
      throw new ApiError(
        'ap2_mandate_already_consumed',
        'This closed Payment Mandate (or its transaction_id) is being presented by another request; if that request ends without an approval it can be presented again once the answer deadline has passed.',
        { headers: { 'retry-after': String(Math.max(1, Math.ceil(was.wait_ms / 1000))) } },
      );
    }
    // A stale claim: settled from what the authorizations table recorded for it (ap2-claims.ts;
    // the background sweep settles it the same way).
    const approve = await recordedApprove(db, was, deadlineSeconds);
    if (approve !== null) {
      const settled = await db.begin((tx) => consumeStale(tx, was, approve, c.owner));
      if (settled !== null) throw consumedError(settled);
      continue;
    }
    // No approval was recorded for it: this request takes the claim over.
    const [taken] = await db<{ closed_hash: string }[]>`
      update ap2_presentations set closed_hash = ${closed.hash}, open_hash = ${c.openHash},
        transaction_id = ${closed.transactionId}, agent_id = ${c.agentId}, amount = ${closed.amount},
        currency = ${closed.currency}, payee_id = ${closed.payeeId}, request_id = ${c.requestId},
        claimed_at = now(), presented_at = now()
      where closed_hash = ${was.closed_hash} and status = 'PENDING' and claimed_at::text = ${was.claimed_stamp}
        and request_id is not distinct from ${was.request_id}
      returning closed_hash`.catch((err: unknown) => {
      if (isUniqueViolation(err)) return [];
      throw err;
    });
    if (taken !== undefined) return;
  }
  throw new ApiError(
    'ap2_mandate_already_consumed',
    'This closed Payment Mandate (or its transaction_id) is being presented by another request.',
  );
}

function alreadyImported(mandateId: string | null): ApiError {
  return new ApiError(
    'ap2_mandate_already_imported',
    mandateId === null
      ? 'This open Payment Mandate (its issuer-signed JWT) is being imported by another request.'
      : `This open Payment Mandate (its issuer-signed JWT) was already imported as ${mandateId}; a grant is imported once, also after a revoke.`,
  );
}

/**
 * The import's transaction; a concurrent import of the same grant that commits first makes this
 * one's insert a unique violation (issuer_jwt_hash or credential_hash), answered 409 like the check
 * before it, not 500.
 */
// biome-ignore lint/complexity/noBannedTypes: postgres.js's own default type parameter
async function importOnce<T>(db: Sql, fn: (tx: postgres.TransactionSql<{}>) => Promise<T>): Promise<T> {
  try {
    return (await db.begin(fn)) as T;
  } catch (err) {
    if (isUniqueViolation(err)) {
      const c = (err as { constraint_name?: string; constraint?: string }).constraint_name ?? '';
      if (c === '' || c.startsWith('ap2_mandates')) throw alreadyImported(null);
    }
    throw err;
  }
}

function safeHash(token: string): string | null {
  try {
    return tokenHash(token);
  } catch {
    return null;
  }
}

export function ap2Routes(services: Services): RouteDef[] {
  // The public status by hash needs no credential: bounded per client address (the address
  // TRUSTED_PROXIES resolves), so one caller polling in a loop is refused 429 with Retry-After
  // while other addresses, and every credentialed route, go on.
  const statusLimiter = new RateLimiter({
    requestsPerSecond: services.config.ap2StatusRequestsPerSecond,
    burstRequests: services.config.ap2StatusBurstRequests,
    maxTrackedCredentials: 10_000,
    policyName: 'ap2_status',
  });
  return [
    {
      method: 'PUT',
      path: '/api/v1/principals/:principal_id/ap2-issuer-keys',
      auth: 'client',
      body: 'Ap2IssuerKeysRequest',
      response: 'Ap2IssuerKeys',
      successStatus: 200,
      operationId: 'putAp2IssuerKeys',
      summary: "Register the JWKS that signs a Principal's AP2 open Payment Mandates (replaces the set)",
      handler: async (ctx) => {
        const principalId = idParam(ctx, 'principal_id', 'principal_not_found');
        const { keys } = bodyOf<{ keys: (JWK & { kid: string })[] }>(ctx);
        const problems: { field: string; message: string }[] = [];
        const kids = new Set<string>();
        keys.forEach((k, i) => {
          if (kids.has(k.kid)) problems.push({ field: `keys.${i}.kid`, message: 'repeats another key' });
          kids.add(k.kid);
          if (!KEY_TYPES.has(String(k.kty)))
            problems.push({ field: `keys.${i}.kty`, message: 'must be EC, OKP or RSA' });
          if ('d' in k || 'p' in k || 'k' in k) {
            problems.push({ field: `keys.${i}`, message: 'must be a public key (no private members)' });
          } else if (KEY_TYPES.has(String(k.kty)) && keyOf(k) === null) {
            problems.push({ field: `keys.${i}`, message: 'is not a valid public JWK (its members do not make a key)' });
          }
        });
        if (problems.length > 0) throw new ApiError('validation_error', undefined, { details: problems });
        const out = await ctx.db.begin(async (tx) => {
          const [owned] =
            await tx`select 1 from principals where id = ${principalId} and client_id = ${ctx.auth.clientId}`;
          if (owned === undefined) throw new ApiError('principal_not_found');
          const existing = await tx<{ kid: string; jwk: JWK }[]>`
            select kid, jwk from ap2_issuer_keys where principal_id = ${principalId} for update`;
          for (const k of keys) {
            const had = existing.find((e) => e.kid === k.kid);
            if (had !== undefined && JSON.stringify(publicPart(had.jwk)) !== JSON.stringify(publicPart(k))) {
              throw new ApiError('conflict', `kid ${k.kid} already names another key: a rotated key takes a new kid.`);
            }
            await tx`insert into ap2_issuer_keys (principal_id, kid, jwk, status)
              values (${principalId}, ${k.kid}, ${tx.json(publicPart(k) as never)}, 'ACTIVE')
              on conflict (principal_id, kid) do update set status = 'ACTIVE', retired_at = null`;
          }
          await tx`update ap2_issuer_keys set status = 'RETIRED', retired_at = now()
            where principal_id = ${principalId} and status = 'ACTIVE' and not (kid = any(${[...kids]}))`;
          return issuerKeys(tx, principalId);
        });
        return json(200, out);
      },
    },
    {
      method: 'GET',
      path: '/api/v1/principals/:principal_id/ap2-issuer-keys',
      auth: 'client',
      response: 'Ap2IssuerKeys',
      operationId: 'getAp2IssuerKeys',
      summary: "The JWKS of a Principal's AP2 mandate issuers, with the retired kids",
      handler: async (ctx) => {
        const principalId = idParam(ctx, 'principal_id', 'principal_not_found');
        const [owned] =
          await ctx.db`select 1 from principals where id = ${principalId} and client_id = ${ctx.auth.clientId}`;
        if (owned === undefined) throw new ApiError('principal_not_found');
        return json(200, await issuerKeys(ctx.db, principalId));
      },
    },
    {
      method: 'POST',
      path: '/api/v1/agents/:agent_id/ap2-mandates',
      auth: 'principal',
      body: 'Ap2MandateImportRequest',
      response: 'RuntimeMandate',
      successStatus: 201,
      operationId: 'importAp2Mandate',
      summary: 'Import an AP2 open Payment Mandate (SD-JWT VC) as a mandate of one of the caller’s agents',
      errors: [
        'ap2_malformed_credential',
        'ap2_unknown_issuer_key',
        'ap2_invalid_signature',
        'ap2_invalid_disclosure',
        'ap2_wrong_vct',
        'ap2_credential_expired',
        'ap2_agent_key_not_registered',
        'unresolved_constraint',
        'ap2_mandate_already_imported',
      ],
      handler: async (ctx) => {
        const { auth, db } = ctx;
        const agentId = idParam(ctx, 'agent_id', 'agent_not_found');
        const { credential } = bodyOf<{ credential: string }>(ctx);
        const [agent] = await db<Pick<AgentRow, 'program_id' | 'status' | 'public_key_jwk'>[]>`
          select program_id, status, public_key_jwk from agents where id = ${agentId} and principal_id = ${auth.principalId}`;
        if (agent === undefined) throw new ApiError('agent_not_found');
        const mandateId = await recordingRefusal(
          services,
          ctx,
          'import',
          agentId,
          () => safeHash(credential),
          async () => {
            const keys = await db<IssuerKey[]>`
              select kid, jwk from ap2_issuer_keys where principal_id = ${auth.principalId} and status = 'ACTIVE'`;
            const now = Date.now();
            const open = await verifyOpenMandate(credential, keys, (agent.public_key_jwk as JWK | null) ?? null, now);
            const mapped = mapConstraints(open.content, open.undisclosed);
            if (agent.status === 'REVOKED') {
              throw new ApiError('validation_error', 'The agent is REVOKED and cannot receive mandates.');
            }
            return importOnce(db, async (tx) => {
              // One import per signed grant: identified by its issuer-signed JWT, whatever the
              // order or repetition of its disclosures, and also after a revoke.
              const [dup] = await tx`select mandate_id from ap2_mandates
                where issuer_jwt_hash = ${open.jwtHash} or credential_hash = ${open.hash}`;
              if (dup !== undefined) throw alreadyImported(dup.mandate_id as string);
              await assertMandateRoom(tx, agentId);
              const id = newId('mnd');
              const validFrom = new Date(now);
              const validUntil = new Date(open.expMs);
              const hash = runtimeMandateHash({
                agent_id: agentId,
                principal_id: auth.principalId,
                rails: ['card'],
                limits: {
                  currency: mapped.currency,
                  max_amount_per_transaction: formatAmount(mapped.perTransaction),
                  max_daily_amount: null,
                  max_monthly_amount: null,
                  max_total_amount: mapped.total === null ? undefined : formatAmount(mapped.total),
                },
                allowed_mccs: null,
                blocked_mccs: null,
                allowed_countries: null,
                blocked_countries: null,
                crypto: null,
                valid_from: validFrom.toISOString(),
                valid_until: validUntil.toISOString(),
                terms: mapped.terms,
                ap2_credential_hash: open.hash,
              });
              await tx`insert into mandates (id, agent_id, principal_id, program_id, status, rails, currency,
                  max_amount_per_transaction, max_total_amount, valid_from, valid_until, mandate_hash, terms)
                values (${id}, ${agentId}, ${auth.principalId}, ${agent.program_id}, 'ACTIVE', ${['card']},
                  ${mapped.currency}, ${toDb(mapped.perTransaction)},
                  ${mapped.total === null ? null : toDb(mapped.total)}, ${validFrom}, ${validUntil}, ${hash},
                  ${tx.json(mapped.terms as never)})`;
              await tx`insert into ap2_mandates (mandate_id, principal_id, agent_id, credential_hash, issuer_jwt_hash,
                  credential, issuer_kid, cnf_jwk, cnf_thumbprint, reference)
                values (${id}, ${auth.principalId}, ${agentId}, ${open.hash}, ${open.jwtHash}, ${open.credential},
                  ${open.kid}, ${tx.json(open.cnfJwk as never)}, ${open.cnfThumbprint}, ${mapped.reference})`;
              await writeOutbox(tx, [
                outboxEvent({ clientId: auth.clientId, principalId: auth.principalId }, 'ap2_mandate.imported', {
                  mandate_id: id,
                  agent_id: agentId,
                  credential_hash: open.hash,
                  issuer_kid: open.kid,
                  mandate_hash: hash,
                  currency: mapped.currency,
                  max_amount_per_transaction: moneyText(mapped.perTransaction, mapped.currency),
                  max_total_amount: mapped.total === null ? null : moneyText(mapped.total, mapped.currency),
                  valid_until: validUntil.toISOString(),
                }),
              ]);
              return id;
            });
          },
        );
        await invalidateAgent(services, auth.environment, agentId);
        const row = await loadOwnedMandate(db, auth.principalId, mandateId);
        const ap2 = await ap2Row(db, mandateId);
        return json(201, { ...mandateView(row), ap2: ap2 === null ? null : ap2View(ap2) });
      },
    },
    {
      method: 'POST',
      path: '/api/v1/authorize/ap2',
      auth: 'principal',
      body: 'Ap2AuthorizeRequest',
      response: 'Ap2AuthorizeResponse',
      successStatus: 200,
      operationId: 'authorizeAp2',
      agentKey: 'handler',
      summary: 'Present an AP2 closed Payment Mandate: verified, decided as /authorize, consumed once',
      errors: [
        'ap2_malformed_credential',
        'ap2_mandate_not_imported',
        'ap2_key_binding_invalid',
        'ap2_invalid_disclosure',
        'ap2_wrong_vct',
        'ap2_credential_expired',
        'ap2_mandate_already_consumed',
        'mandate_not_active',
      ],
      handler: async (ctx) => {
        const startedAt = performance.now();
        const { auth, db } = ctx;
        const body = bodyOf<Ap2AuthorizeBody>(ctx);
        assertOwnAgent(auth, body.agent_id);
        const [agent] =
          await db`select 1 from agents where id = ${body.agent_id} and principal_id = ${auth.principalId}`;
        if (agent === undefined) throw new ApiError('agent_not_found');
        let closedToken: string | null = null;
        const presented = await recordingRefusal(
          services,
          ctx,
          'presentation',
          body.agent_id,
          () => (closedToken === null ? null : safeHash(closedToken)),
          async () => {
            const chain = splitChain(body.payment_mandate);
            closedToken = chain.closed;
            // The open mandate is found by its issuer-signed JWT (its identity, whatever the order
            // of the disclosures presented); the closed one is bound to the token as presented.
            const [m] = await db<(Ap2MandateRow & { status: string; valid_until: Date })[]>`
              select a.mandate_id, a.agent_id, a.credential_hash, a.issuer_kid, a.cnf_jwk, a.cnf_thumbprint,
                a.reference, a.imported_at, m.status, m.valid_until
              from ap2_mandates a join mandates m on m.id = a.mandate_id
              where a.issuer_jwt_hash = ${issuerJwtHash(chain.open)} and a.agent_id = ${body.agent_id}
                and a.principal_id = ${auth.principalId}`;
            if (m === undefined) throw new ApiError('ap2_mandate_not_imported');
            const openHash = m.credential_hash;
            if (m.status !== 'ACTIVE' || m.valid_until.getTime() <= Date.now()) {
              throw new ApiError(
                'mandate_not_active',
                `The mandate is ${m.status === 'ACTIVE' ? 'EXPIRED' : m.status}: it can no longer be presented.`,
              );
            }
            const closed = await verifyClosedMandate(chain.closed, chain.open, m.cnf_jwk, Date.now());
            // The claim: one row per closed mandate and per (mandate, transaction_id), on any instance.
            await claimPresentation(db, {
              closed,
              mandateId: m.mandate_id,
              openHash,
              principalId: auth.principalId,
              agentId: body.agent_id,
              requestId: ctx.requestId,
              deadlineMs: services.config.authorizeDeadlineMs,
              owner: { clientId: auth.clientId, principalId: auth.principalId },
            });
            return { m, closed, openHash };
          },
        );
        const { m, closed, openHash } = presented;
        const request: AuthorizeRequest = {
          requestId: ctx.requestId,
          environment: auth.environment,
          clientId: auth.clientId,
          principalId: auth.principalId,
          agentId: body.agent_id,
          amount: closed.amount,
          currency: closed.currency,
          merchantName: body.merchant_name ?? closed.payeeName,
          merchantId: closed.payeeId,
          mcc: body.mcc ?? null,
          country: body.country === undefined ? null : (toAlpha3(body.country) ?? null),
          rail: 'CARD',
          crypto: null,
          intent: {
            intentType: body.intent_context.intent_type ?? 'purchase',
            taskReference: body.intent_context.task_reference,
            reasoningSummary: body.intent_context.reasoning_summary ?? null,
            confidence: body.intent_context.confidence ?? null,
            alternativesConsidered: null,
          },
          sessionId: body.session_id ?? null,
          // Links the decision to the claim: a stale PENDING claim is settled from the authorization
          // recorded under this key (claimPresentation). Request ids are the service's own, unique.
          idempotencyKey: claimKey(ctx.requestId),
          stepUpConfirmed: body.step_up_confirmed === true,
          captureMethod: 'automatic',
          receivedAtMs: Date.now() - (performance.now() - ctx.startedAt),
          mandateId: m.mandate_id,
        };
        let reply: DecisionReply;
        try {
          reply = await services.engine.authorize(request);
        } catch (err) {
          services.log.error({ err, request_id: ctx.requestId }, 'ap2 authorize fault; answering the safe decision');
          reply = toReply(safeDecision(request));
        }
        const decision = JSON.parse(
          finishReply(reply, Math.round((performance.now() - startedAt) * 1000) / 1000),
        ) as Record<string, unknown>;
        // An agent key gets the verdict without the scores, as on POST /authorize (docs/auth.md).
        if (boundAgent(auth) !== null) withholdAgentScores(decision);
        const approved = decision.decision === 'APPROVE';
        const authorizationId = (decision.authorization_id as string | null) ?? null;
        const owner = { clientId: auth.clientId, principalId: auth.principalId };
        let consumedAt: Date | null = null;
        // The safe decision (system_unavailable) may have been answered while its commit was in
        // doubt: the claim stays PENDING and is settled from the authorizations table once older
        // than the answer deadline (claimPresentation), never deleted blindly.
        const safe = isSafeDecision(decision);
        if (approved) {
          consumedAt = await db.begin(async (tx) => {
            const [done] = await tx<{ consumed_at: Date }[]>`
              update ap2_presentations set status = 'CONSUMED', authorization_id = ${authorizationId}, consumed_at = now()
              where closed_hash = ${closed.hash} and request_id = ${ctx.requestId} returning consumed_at`;
            if (done === undefined) {
              services.log.error(
                { request_id: ctx.requestId, closed_mandate_hash: closed.hash, authorization_id: authorizationId },
                'ap2 approve found its claim settled or taken over',
              );
            }
            await writeOutbox(tx, [
              outboxEvent(owner, 'ap2_mandate.consumed', {
                mandate_id: m.mandate_id,
                agent_id: body.agent_id,
                credential_hash: openHash,
                closed_mandate_hash: closed.hash,
                transaction_id: closed.transactionId,
                authorization_id: authorizationId,
                amount: closed.amount,
                currency: closed.currency,
                payee_id: closed.payeeId,
                consumed_at: done?.consumed_at.toISOString() ?? null,
              }),
            ]);
            return done?.consumed_at ?? null;
          });
        } else {
          // Not paid: the closed mandate is not consumed and may be presented again (after the
          // safe decision, once its claim is reconciled).
          await db.begin(async (tx) => {
            if (!safe) {
              await tx`delete from ap2_presentations
                where closed_hash = ${closed.hash} and status = 'PENDING' and request_id = ${ctx.requestId}`;
            }
            await writeOutbox(tx, [
              outboxEvent(owner, 'ap2_mandate.refused', {
                stage: 'decision',
                agent_id: body.agent_id,
                mandate_id: m.mandate_id,
                credential_hash: openHash,
                closed_mandate_hash: closed.hash,
                transaction_id: closed.transactionId,
                authorization_id: authorizationId,
                decision: decision.decision,
                reason_codes: decision.reason_codes,
                error: 'decline',
                ap2_error: ap2ErrorOf('decline'),
                message: decision.reason_detail ?? null,
              }),
            ]);
          });
        }
        const receipt = await signStatement(services.auth.receipts, AP2_RECEIPT_TYP, auth.environment, {
          status: approved ? 'Success' : 'Error',
          result: approved ? 'success' : 'error',
          reference: closed.hash,
          payment_id: authorizationId ?? `unrecorded:${closed.hash}`,
          ...(approved
            ? { psp_confirmation_id: authorizationId, network_confirmation_id: authorizationId }
            : {
                error: ap2ErrorOf('decline'),
                error_description: String(decision.reason_detail ?? decision.decision),
              }),
          vct: CLOSED_VCT,
          open_mandate_reference: openHash,
          transaction_id: closed.transactionId,
          decision: decision.decision,
          reason_codes: decision.reason_codes,
          amount: closed.amount,
          currency: closed.currency,
          payment_amount: ap2Amount(parseAmount(closed.amount) ?? 0n, closed.currency),
          payee_id: closed.payeeId,
        });
        return json(200, {
          ...decision,
          ap2: {
            receipt,
            closed_mandate_hash: closed.hash,
            open_mandate_hash: openHash,
            transaction_id: closed.transactionId,
            consumed: approved,
            consumed_at: consumedAt === null ? null : consumedAt.toISOString(),
          },
        });
      },
    },
    {
      method: 'GET',
      path: '/api/v1/ap2-mandates/:hash',
      auth: 'principal',
      response: 'Ap2MandateStatus',
      operationId: 'getAp2MandateStatus',
      summary: 'The status of an imported open or a presented closed Payment Mandate, by its hash',
      errors: ['ap2_mandate_unknown_hash'],
      handler: async (ctx) => {
        const { auth, db } = ctx;
        const hash = ctx.params.hash ?? '';
        if (!/^[A-Za-z0-9_-]{43}$/.test(hash)) throw new ApiError('ap2_mandate_unknown_hash');
        const [open] = await db<(Ap2MandateRow & { status: string; valid_until: Date; consumed: number })[]>`
          select a.mandate_id, a.agent_id, a.credential_hash, a.issuer_kid, a.cnf_jwk, a.cnf_thumbprint, a.reference,
            a.imported_at, (case when m.status = 'ACTIVE' and m.valid_until <= now() then 'EXPIRED' else m.status end) as status,
            m.valid_until,
            (select count(*)::int from ap2_presentations p where p.mandate_id = a.mandate_id and p.status = 'CONSUMED') as consumed
          from ap2_mandates a join mandates m on m.id = a.mandate_id
          where a.credential_hash = ${hash} and a.principal_id = ${auth.principalId}`;
        if (open !== undefined) {
          assertOwnAgent(auth, open.agent_id);
          return json(200, {
            kind: 'open',
            hash,
            vct: OPEN_VCT,
            mandate_id: open.mandate_id,
            agent_id: open.agent_id,
            status: open.status,
            imported_at: open.imported_at.toISOString(),
            valid_until: open.valid_until.toISOString(),
            consumed_presentations: open.consumed,
          });
        }
        const [closed] = await db<PresentationRow[]>`
          select * from ap2_presentations where closed_hash = ${hash} and principal_id = ${auth.principalId}`;
        if (closed === undefined) throw new ApiError('ap2_mandate_unknown_hash');
        assertOwnAgent(auth, closed.agent_id);
        return json(200, {
          kind: 'closed',
          hash,
          vct: CLOSED_VCT,
          mandate_id: closed.mandate_id,
          agent_id: closed.agent_id,
          open_mandate_hash: closed.open_hash,
          transaction_id: closed.transaction_id,
          status: closed.status,
          consumed: closed.status === 'CONSUMED',
          authorization_id: closed.authorization_id,
          consumed_at: closed.consumed_at === null ? null : closed.consumed_at.toISOString(),
          amount: toJsonNumber(fromDb(closed.amount) ?? 0n),
          currency: closed.currency,
          payee_id: closed.payee_id,
        });
      },
    },
    {
      method: 'GET',
      path: '/api/v1/ap2-mandates/:hash/status',
      auth: 'none',
      response: 'Ap2PublicStatus',
      operationId: 'getAp2MandatePublicStatus',
      summary: 'For merchants and credential providers holding a Payment Mandate: its status by hash, signed',
      errors: ['ap2_mandate_unknown_hash', 'rate_limited'],
      handler: async (ctx) => {
        statusLimiter.check(ctx.ip, performance.now());
        const hash = ctx.params.hash ?? '';
        if (!/^[A-Za-z0-9_-]{43}$/.test(hash)) throw new ApiError('ap2_mandate_unknown_hash');
        // Whoever holds the token can compute its hash (256 bits: not guessable): the answer says
        // only what a party to the payment may know, never the Principal, the agent or amounts
        // of other payments. Live first, then the sandbox when it exists.
        const envs = (['live', 'sandbox'] as const).filter((e) => services.dbs.exists(e));
        for (const env of envs) {
          const db = services.dbs.forEnv(env);
          const [open] = await db<{ status: string; valid_until: Date }[]>`
            select (case when m.status = 'ACTIVE' and m.valid_until <= now() then 'EXPIRED' else m.status end) as status,
              m.valid_until
            from ap2_mandates a join mandates m on m.id = a.mandate_id where a.credential_hash = ${hash}`;
          const [closed] =
            open === undefined
              ? await db<PresentationRow[]>`select * from ap2_presentations where closed_hash = ${hash}`
              : [];
          if (open === undefined && closed === undefined) continue;
          const claims =
            open !== undefined
              ? {
                  kind: 'open',
                  hash,
                  vct: OPEN_VCT,
                  environment: env,
                  status: open.status,
                  valid_until: open.valid_until.toISOString(),
                }
              : {
                  kind: 'closed',
                  hash,
                  vct: CLOSED_VCT,
                  environment: env,
                  status: (closed as PresentationRow).status,
                  consumed: (closed as PresentationRow).status === 'CONSUMED',
                  authorization_id: (closed as PresentationRow).authorization_id,
                  consumed_at: (closed as PresentationRow).consumed_at?.toISOString() ?? null,
                  transaction_id: (closed as PresentationRow).transaction_id,
                };
          const statement = await signStatement(services.auth.receipts, AP2_STATUS_TYP, env, { ...claims });
          return json(200, { ...claims, statement });
        }
        throw new ApiError('ap2_mandate_unknown_hash');
      },
    },
    {
      method: 'GET',
      path: '/api/v1/mandates/:mandate_id/budget-statement',
      auth: 'principal',
      response: 'BudgetStatement',
      operationId: 'getBudgetStatement',
      agentKey: 'handler',
      summary: 'A signed statement of what remains of a mandate, now (verifiable offline against the JWKS)',
      handler: async (ctx) => {
        const { auth, db } = ctx;
        const row = await loadOwnedMandate(db, auth.principalId, idParam(ctx, 'mandate_id', 'mandate_not_found'));
        assertOwnAgent(auth, row.agent_id);
        const usage = await mandateUsage(db, row);
        const ap2 = await ap2Row(db, row.id);
        const [counts] = await db<{ n: number; back: number }[]>`
          select (select count(*)::int from authorizations where agent_id = ${row.agent_id} and mandate_id = ${row.id}
                    and decision = 'APPROVE') as n,
                 (select coalesce(sum(count_back), 0)::int from budget_credits where agent_id = ${row.agent_id}
                    and mandate_id = ${row.id}) as back`;
        const occurrences = (counts?.n ?? 0) - (counts?.back ?? 0);
        const asOf = new Date();
        const windows: Record<string, unknown> = {};
        for (const [name, u] of Object.entries(usage)) {
          // Amounts with the currency's minor units ("60.00"), counts as whole numbers ("3").
          const show = name.endsWith('_count')
            ? (v: unknown) => String(v)
            : (v: unknown) => moneyText(parseAmount(v) ?? 0n, row.currency);
          windows[name] = {
            window: u.window,
            window_start: u.window_start,
            limit: show(u.limit),
            used: show(u.used),
            held: show(u.held),
            remaining: show(u.remaining),
          };
        }
        const r = row.terms?.recurrence;
        const claims = {
          sub: row.id,
          mandate_id: row.id,
          mandate_hash: row.mandate_hash,
          credential_hash: ap2?.credential_hash ?? null,
          status: row.status,
          environment: auth.environment,
          currency: row.currency,
          as_of: asOf.toISOString(),
          valid_until: row.valid_until.toISOString(),
          max_amount_per_transaction: moneyText(fromDb(row.max_amount_per_transaction) ?? 0n, row.currency),
          windows,
          occurrences: {
            used: occurrences,
            max: r?.max_occurrences ?? null,
            remaining: r?.max_occurrences === undefined ? null : Math.max(0, r.max_occurrences - occurrences),
            frequency: r?.frequency ?? null,
          },
        };
        const statement = await signStatement(
          services.auth.receipts,
          BUDGET_STATEMENT_TYP,
          auth.environment,
          claims,
          asOf.getTime(),
        );
        return json(200, { statement, claims });
      },
    },
  ];
}

interface Ap2AuthorizeBody {
  agent_id: string;
  payment_mandate: string;
  intent_context: {
    intent_type?: string;
    task_reference: string;
    reasoning_summary?: string;
    confidence?: number;
  };
  merchant_name?: string;
  mcc?: string;
  country?: string;
  session_id?: string;
  step_up_confirmed?: boolean;
}

/** The public members of a JWK, in a fixed order (what is stored and compared). */
function publicPart(k: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of ['kty', 'kid', 'crv', 'x', 'y', 'n', 'e', 'alg', 'use']) if (k[f] !== undefined) out[f] = k[f];
  return out;
}

// biome-ignore lint/complexity/noBannedTypes: postgres.js's own default type parameter
async function issuerKeys(db: postgres.ISql<{}>, principalId: string): Promise<Record<string, unknown>> {
  const rows = await db<{ kid: string; jwk: JWK; status: string; retired_at: Date | null }[]>`
    select kid, jwk, status, retired_at from ap2_issuer_keys where principal_id = ${principalId} order by created_at, kid`;
  return {
    principal_id: principalId,
    keys: rows.filter((r) => r.status === 'ACTIVE').map((r) => r.jwk),
    retired: rows
      .filter((r) => r.status === 'RETIRED')
      .map((r) => ({ kid: r.kid, retired_at: r.retired_at === null ? null : r.retired_at.toISOString() })),
  };
}
