// Idempotency-Key for the onboarding creates (SPEC.md "Idempotency"). A key is scoped to the
// calling Client in the database of the credential's environment and kept 24 hours.
//
// 1. The key is claimed with INSERT ... ON CONFLICT DO NOTHING in its own statement, so two
//    concurrent requests cannot both proceed: the loser sees the claim and answers 409
//    idempotency_key_in_use (or 422 idempotency_key_reuse when its body differs).
// 2. The work runs in one transaction that also records the response on the claim, so a
//    committed object and its replayable answer are never separated.
// 3. A request that fails releases its claim: the same key may be retried.
// A claim left in flight by a crashed process is taken over after STALE_CLAIM_SECONDS.
import { createHash } from 'node:crypto';
import type postgres from 'postgres';
import { canonicalJson } from '../domain/mandate-hash.js';
import { ApiError } from '../errors/registry.js';
import type { Reply, RequestContext } from '../http/types.js';
import { asyncCommit } from '../storage/async-commit.js';
import type { Sql } from '../storage/db.js';
import { IDEMPOTENCY_RETENTION_SECONDS } from '../storage/idempotency-sweep.js';

// biome-ignore lint/complexity/noBannedTypes: postgres.js's own default type parameter
export type Tx = postgres.TransactionSql<{}>;
/** A pool or a transaction: anything that runs a query. */
// biome-ignore lint/complexity/noBannedTypes: postgres.js's own default type parameter
export type Db = postgres.ISql<{}>;

/** How long a completed key replays its answer (SPEC: "roughly 24 hours"); swept by src/storage/idempotency-sweep.ts. */
export const RETENTION_SECONDS = IDEMPOTENCY_RETENTION_SECONDS;
/** An in-flight claim older than this belongs to a request that will never finish. */
export const STALE_CLAIM_SECONDS = 5 * 60;
const HEADER = 'idempotency-key';
const KEY_SYNTAX = /^[\x21-\x7e]{1,255}$/;
/** Response header marking an answer replayed from an earlier request. */
export const REPLAY_HEADER = 'idempotent-replayed';

interface StoredKey {
  request_hash: string;
  state: 'in_flight' | 'done';
  response_status: number | null;
  response_json: string | null;
}

/** SHA-256 of the method, the path and the canonical JSON of the validated body. */
export function requestHash(ctx: Pick<RequestContext, 'method' | 'path' | 'body'>): string {
  return createHash('sha256')
    .update(`${ctx.method}\n${ctx.path}\n${canonicalJson(ctx.body ?? null)}`, 'utf8')
    .digest('hex');
}

/**
 * Runs `work` in a transaction of the request's database, under the request's Idempotency-Key
 * when it carries one. Only 2xx answers are remembered; an error releases the key.
 */
export async function withIdempotency(
  ctx: RequestContext<'client' | 'principal'>,
  work: (tx: Tx) => Promise<Reply>,
): Promise<Reply> {
  const { db, auth } = ctx;
  // Keys are scoped to the calling Client, or to the calling Principal on the runtime plane
  // (holds: src/runtime/holds-routes.ts); both live in idempotency_keys.client_id.
  const owner = auth.kind === 'client' ? auth.clientId : auth.principalId;
  const key = ctx.headers[HEADER];
  if (key === undefined) return db.begin((tx) => work(tx)) as Promise<Reply>;
  if (!KEY_SYNTAX.test(key)) {
    throw new ApiError('validation_error', 'The Idempotency-Key header is invalid.', {
      details: [{ field: 'Idempotency-Key', code: 'pattern', message: 'must be 1 to 255 visible ASCII characters' }],
    });
  }
  const hash = requestHash(ctx);
  const existing = await claim(db, owner, key, hash);
  if (existing !== null) return existing;

  let reply: Reply;
  try {
    reply = (await db.begin(async (tx) => {
      const r = await work(tx);
      if (r.status < 200 || r.status >= 300) return r;
      const text = r.rawJson ?? JSON.stringify(r.body ?? null);
      await tx`update idempotency_keys set state = 'done', response_status = ${r.status}, response_json = ${text}
        where client_id = ${owner} and key = ${key} and request_hash = ${hash}`;
      return { status: r.status, rawJson: text, ...(r.headers ? { headers: r.headers } : {}) };
    })) as Reply;
  } catch (err) {
    await release(db, owner, key, hash).catch(() => {});
    throw err;
  }
  // Only 2xx answers are remembered.
  if (reply.status < 200 || reply.status >= 300) await release(db, owner, key, hash).catch(() => {});
  return reply;
}

/** Claims the key for this request (null) or answers from its earlier use. */
async function claim(db: Sql, owner: string, key: string, hash: string): Promise<Reply | null> {
  // This key, expired or a stale claim, is forgotten before the claim (by its primary key: the
  // Client's other expired keys are the sweep's, src/storage/idempotency-sweep.ts; purging them
  // here read every key of the Client on every request, a cost growing with its 24 hours of keys).
  await db`delete from idempotency_keys where client_id = ${owner} and key = ${key}
    and (created_at < now() - make_interval(secs => ${RETENTION_SECONDS})
      or (state = 'in_flight' and created_at < now() - make_interval(secs => ${STALE_CLAIM_SECONDS})))`;
  // A claim released between our insert and our read: try again (bounded).
  for (let attempt = 0; attempt < 3; attempt++) {
    // Committed without waiting for the disk: the work's own commit, which waits, flushes it too.
    const inserted = await db`insert into idempotency_keys (client_id, key, request_hash, state)
      select ${owner}, ${key}, ${hash}, 'in_flight' from ${asyncCommit(db)}
      on conflict (client_id, key) do nothing returning key`;
    if (inserted.length === 1) return null;
    const [row] = await db<StoredKey[]>`select request_hash, state, response_status, response_json
      from idempotency_keys where client_id = ${owner} and key = ${key}`;
    if (row === undefined) continue;
    if (row.request_hash !== hash) throw new ApiError('idempotency_key_reuse');
    // Its answer was dropped by the per-Client cap; the key stays reserved until its 24 hours end.
    if (row.state === 'done' && row.response_json === null) throw new ApiError('idempotency_key_expired');
    if (row.state === 'in_flight' || row.response_status === null || row.response_json === null) {
      throw new ApiError('idempotency_key_in_use', undefined, { headers: { 'retry-after': '1' } });
    }
    return { status: row.response_status, rawJson: row.response_json, headers: { [REPLAY_HEADER]: 'true' } };
  }
  throw new ApiError('idempotency_key_in_use', undefined, { headers: { 'retry-after': '1' } });
}

async function release(db: Sql, owner: string, key: string, hash: string): Promise<void> {
  await db`delete from idempotency_keys where client_id = ${owner} and key = ${key}
    and request_hash = ${hash} and state = 'in_flight'`;
}
