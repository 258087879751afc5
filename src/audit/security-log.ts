// The append-only security log (migration 0100): who did what to which security-relevant
// object, when and from where. A record is written with the same transaction handle as the
// action it describes wherever the action is transactional, so an action never commits without
// its record; the database refuses UPDATE, DELETE and TRUNCATE of the table. Records never hold
// a raw key or secret: `changes` is what changed, secrets left out.

import type postgres from 'postgres';
import type { CredentialJson } from '../auth/credentials.js';
import type { AuthContext } from '../auth/types.js';
import { randomToken } from '../domain/ids.js';
import { ApiError } from '../errors/registry.js';
import type { RequestContext } from '../http/types.js';
import type { Sql } from '../storage/db.js';

/** Every action the log records (also the enum of schemas/SecurityLogQuery.json). */
export type SecurityAction =
  | 'client.created'
  | 'client.rate_limits_updated'
  | 'credential.created'
  | 'credential.rotated'
  | 'credential.revoked'
  | 'authorization.dry_run'
  | 'agent.suspended'
  | 'agent.reactivated'
  | 'agent.revoked'
  | 'mandate.updated'
  | 'mandate.revoked'
  | 'step_up_policy.updated'
  | 'confirmation_channel.updated'
  | 'thresholds.updated'
  | 'thresholds.reset'
  | 'thresholds.shadow_updated'
  | 'thresholds.shadow_reset'
  | 'webhook.created'
  | 'webhook.updated'
  | 'webhook.disabled'
  | 'webhook.reenabled'
  | 'webhook.deleted'
  | 'webhook.secret_rotated'
  | 'receipt_key.rotated'
  | 'admin_key.rejected';

export type SecurityActorKind = 'operator' | 'client' | 'principal' | 'anonymous';

export interface SecurityEvent {
  readonly action: SecurityAction;
  readonly targetType:
    | 'client'
    | 'credential'
    | 'agent'
    | 'mandate'
    | 'principal'
    | 'thresholds'
    | 'webhook'
    | 'admin_plane'
    | 'receipt_key';
  readonly targetId: string | null;
  /** What changed, without secrets (never a raw key, a secret or a hash of one). */
  readonly changes?: Record<string, unknown>;
}

interface Actor {
  kind: SecurityActorKind;
  credentialId: string | null;
  clientId: string | null;
  principalId: string | null;
}

/**
 * The record of a key issued (by the operator, a sandbox key by a Client, an agent key by a
 * Principal): never the key.
 */
export function credentialCreated(
  credential: CredentialJson,
  via: 'operator' | 'sandbox-key' | 'agent-key',
): SecurityEvent {
  return {
    action: 'credential.created',
    targetType: 'credential',
    targetId: credential.id,
    changes: {
      via,
      client_id: credential.client_id,
      principal_id: credential.principal_id ?? null,
      ...(credential.agent_id === undefined ? {} : { agent_id: credential.agent_id }),
      environment: credential.environment,
      scopes: credential.scopes,
      ip_allowlist: credential.ip_allowlist,
      expires_at: credential.expires_at,
    },
  };
}

function actorOf(auth: AuthContext | null): Actor {
  if (auth === null) return { kind: 'anonymous', credentialId: null, clientId: null, principalId: null };
  switch (auth.kind) {
    case 'admin':
      return { kind: 'operator', credentialId: null, clientId: null, principalId: null };
    case 'client':
      return { kind: 'client', credentialId: auth.credentialId, clientId: auth.clientId, principalId: null };
    case 'principal':
      return {
        kind: 'principal',
        credentialId: auth.credentialId,
        clientId: auth.clientId,
        principalId: auth.principalId,
      };
  }
}

/**
 * Appends one record for the request's caller. Pass the action's transaction handle so the
 * record commits (or rolls back) with the action.
 */
export async function recordSecurityEvent(
  // biome-ignore lint/complexity/noBannedTypes: postgres.js's own default type parameter
  db: Sql | postgres.TransactionSql<{}>,
  ctx: RequestContext,
  event: SecurityEvent,
): Promise<void> {
  const sql = db as Sql; // the same tagged-template and json() API on a pool and a transaction
  const actor = actorOf(ctx.auth);
  await sql`
    insert into security_log (id, actor_kind, actor_credential_id, actor_client_id, actor_principal_id,
      action, target_type, target_id, changes, ip, request_id)
    values (${`sec_${randomToken()}`}, ${actor.kind}, ${actor.credentialId}, ${actor.clientId}, ${actor.principalId},
      ${event.action}, ${event.targetType}, ${event.targetId}, ${sql.json(storable(event.changes ?? {}) as never)},
      ${ctx.ip}, ${ctx.requestId})`;
}

/**
 * `changes` as jsonb can hold it: NUL and unpaired surrogates (which a text column would have
 * stored as U+FFFD, and jsonb refuses) become U+FFFD, in keys and values alike, so the record
 * never fails an action that would otherwise succeed.
 */
function storable(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(UNSTORABLE, '\uFFFD');
  if (Array.isArray(value)) return value.map(storable);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k.replace(UNSTORABLE, '\uFFFD')] = storable(v);
    return out;
  }
  return value;
}
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what must be replaced
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Rejected X-Admin-Key attempts. There is no action to share a transaction with, and a flood
 * of wrong keys must not become a flood of writes: at most one record per source address per
 * minute, and at most MAX_PER_WINDOW records per minute in all; the write is not awaited, so the 403 never waits on the database.
 */
const WINDOW_MS = 60_000;
const MAX_PER_WINDOW = 100;
const MAX_TRACKED_ADDRESSES = 10_000;

interface RejectionWindow {
  startedAt: number;
  records: number;
  /** Rejections per source address in the current window. */
  readonly seen: Map<string, number>;
}

/** One window per service instance (keyed by its live pool): tests run several in one process. */
const windows = new WeakMap<Sql, RejectionWindow>();

export function adminKeyRejected(live: Sql, ctx: RequestContext): ApiError {
  const now = Date.now();
  let w = windows.get(live);
  if (w === undefined || now - w.startedAt >= WINDOW_MS) {
    w = { startedAt: now, records: 0, seen: new Map() };
    windows.set(live, w);
  }
  const count = (w.seen.get(ctx.ip) ?? 0) + 1;
  if (w.seen.size < MAX_TRACKED_ADDRESSES || w.seen.has(ctx.ip)) w.seen.set(ctx.ip, count);
  if (count === 1 && w.records < MAX_PER_WINDOW) {
    w.records++;
    recordSecurityEvent(live, ctx, {
      action: 'admin_key.rejected',
      targetType: 'admin_plane',
      targetId: null,
      changes: { method: ctx.method, path: ctx.path, key_present: (ctx.headers['x-admin-key'] ?? '') !== '' },
    }).catch(() => {
      // Best effort: the request is refused either way.
    });
  }
  return new ApiError('forbidden');
}
