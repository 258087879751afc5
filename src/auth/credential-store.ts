// Credential lookups with an LRU cache keyed by key hash, plus rotation and revocation.
//
// The cache never serves a revoked or expired key:
// - only active, unexpired credentials are cached, each with the instant it stops being valid
//   (its expires_at, or the end of the rotation grace window for a previous key), re-checked
//   on every use;
// - rotate and revoke evict every entry of the credential synchronously, before they answer;
// - a lookup that was in flight while an eviction happened does not fill the cache (epoch).
// Other instances on the same databases hear of every eviction through PostgreSQL
// LISTEN/NOTIFY (channel credential_evict) and drop the same entries; the short TTL bounds
// staleness should a notification be missed (e.g. while the listening connection reconnects).
import { timingSafeEqual } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { ClientId, CredentialId, PrincipalId } from '../domain/ids.js';
import { ApiError } from '../errors/registry.js';
import type { Databases, Sql } from '../storage/db.js';
import { CREDENTIAL_COLUMNS, type CredentialRow, credentialJson, type IssuedCredential } from './credentials.js';
import { type CompiledAllowlist, compileAllowlist } from './ip-allowlist.js';
import { generateApiKey, hashKey, keyEnvironment } from './keys.js';
import { parseScopes } from './scopes.js';
import type { Environment, PrincipalAuth } from './types.js';

/** An active credential as the authenticator needs it. */
export interface ResolvedCredential {
  readonly id: CredentialId;
  readonly clientId: ClientId;
  readonly principalId: PrincipalId | null;
  readonly environment: Environment;
  /** Stored scope list as issued (e.g. "agents,authorize"). */
  readonly scopeText: string;
  /** Parsed scopes; [] = full access. */
  readonly scopes: readonly string[];
  readonly allowlist: CompiledAllowlist;
  /** Epoch ms after which this credential (or this previous key) no longer authenticates. */
  readonly notAfterMs: number;
  /** The stored hash that matched (for the constant-time comparison). */
  readonly hash: Buffer;
  /** Prebuilt auth context for a Principal key (stable object, no per-request allocation). */
  readonly principalAuth: PrincipalAuth | null;
}

export interface CredentialStoreOptions {
  /** How long a positive lookup is cached, in milliseconds. */
  ttlMs?: number;
  /** Largest number of cached credentials. */
  max?: number;
}

const EVICT_CHANNEL = 'credential_evict';

export class CredentialStore {
  readonly #dbs: Databases;
  readonly #cache: LRUCache<string, ResolvedCredential>;
  #epoch = 0;

  constructor(dbs: Databases, options: CredentialStoreOptions = {}) {
    this.#dbs = dbs;
    this.#cache = new LRUCache({ max: options.max ?? 10_000, ttl: options.ttlMs ?? 10_000 });
  }

  /**
   * Subscribes to evictions made by other instances. Embedded PGlite serves one process only,
   * so there is nobody to hear from there.
   */
  async listen(): Promise<void> {
    if (this.#dbs.embedded) return;
    await this.#dbs.live.listen(EVICT_CHANNEL, (payload) => {
      this.#epoch++;
      for (const key of payload.split(' ')) if (key.length > 0) this.#cache.delete(key);
    });
  }

  /**
   * Resolves a presented API key: the current key of a credential, else (only after that
   * misses) a previous key inside its rotation grace window. The key is looked up only in the
   * database its prefix names. Null for anything that does not authenticate.
   */
  async findByKey(rawKey: string): Promise<ResolvedCredential | null> {
    const env = keyEnvironment(rawKey);
    if (env === null) return null;
    const hash = hashKey(rawKey);
    const cacheKey = `k:${env}:${hash.toString('base64')}`;
    let cred = this.#cache.get(cacheKey);
    if (cred === undefined) {
      const epoch = this.#epoch;
      const found = await this.#lookupHash(this.#dbs.forEnv(env), env, hash);
      if (found === null) return null;
      if (epoch === this.#epoch) this.#cache.set(cacheKey, found);
      cred = found;
    }
    if (Date.now() >= cred.notAfterMs) {
      this.#cache.delete(cacheKey);
      return null;
    }
    return timingSafeEqual(cred.hash, hash) ? cred : null;
  }

  /** The active credential with this id in `env` (access tokens check it on every use). */
  async findById(env: Environment, id: string): Promise<ResolvedCredential | null> {
    const cacheKey = `i:${env}:${id}`;
    let cred = this.#cache.get(cacheKey);
    if (cred === undefined) {
      const epoch = this.#epoch;
      const sql = this.#dbs.forEnv(env);
      const [row] = await sql<CredentialRow[]>`select ${sql(CREDENTIAL_COLUMNS)} from credentials where id = ${id}`;
      const found = row === undefined ? null : resolve(row, env, row.key_hash, false);
      if (found === null) return null;
      if (epoch === this.#epoch) this.#cache.set(cacheKey, found);
      cred = found;
    }
    if (Date.now() >= cred.notAfterMs) {
      this.#cache.delete(cacheKey);
      return null;
    }
    return cred;
  }

  /** Finds a credential by id in either database. */
  async locate(id: string): Promise<CredentialRow | null> {
    for (const env of ['live', 'sandbox'] as const) {
      const sql = this.#dbs.forEnv(env);
      const [row] = await sql<CredentialRow[]>`select ${sql(CREDENTIAL_COLUMNS)} from credentials where id = ${id}`;
      if (row !== undefined) return row;
    }
    return null;
  }

  /**
   * Issues a new key for the same credential id. The previous key keeps authenticating for
   * `graceSeconds` (0 = not at all). A revoked or expired credential cannot be rotated.
   */
  async rotate(id: string, graceSeconds: number): Promise<IssuedCredential> {
    const current = await this.locate(id);
    if (current === null) throw new ApiError('credential_not_found');
    if (current.status !== 'active') throw new ApiError('conflict', 'The credential is revoked; issue a new one.');
    if (current.expires_at !== null && current.expires_at.getTime() <= Date.now()) {
      throw new ApiError('conflict', 'The credential has expired; issue a new one.');
    }
    const apiKey = generateApiKey(current.environment);
    const sql = this.#dbs.forEnv(current.environment);
    const [row] = await sql<CredentialRow[]>`
      update credentials
         set previous_key_hash = key_hash,
             previous_key_expires_at = now() + make_interval(secs => ${graceSeconds}),
             key_hash = ${hashKey(apiKey)}
       where id = ${id} and status = 'active'
      returning ${sql(CREDENTIAL_COLUMNS)}`;
    const evicted = this.#evict(current);
    if (row === undefined) throw new ApiError('conflict', 'The credential is revoked; issue a new one.');
    await this.#broadcast([...evicted, ...this.#evict(row)]);
    return { credential: credentialJson(row), apiKey };
  }

  /** Revokes at once and for good; every key and token of the credential stops working. */
  async revoke(id: string): Promise<CredentialRow> {
    const current = await this.locate(id);
    if (current === null) throw new ApiError('credential_not_found');
    const sql = this.#dbs.forEnv(current.environment);
    const [row] = await sql<CredentialRow[]>`
      update credentials set status = 'revoked', revoked_at = coalesce(revoked_at, now())
       where id = ${id}
      returning ${sql(CREDENTIAL_COLUMNS)}`;
    await this.#broadcast(this.#evict(current));
    if (row === undefined) throw new ApiError('credential_not_found');
    return row;
  }

  /** Drops every cache entry of a credential (its current and previous key, its id). */
  #evict(row: CredentialRow): string[] {
    this.#epoch++;
    const keys = [`k:${row.environment}:${row.key_hash.toString('base64')}`, `i:${row.environment}:${row.id}`];
    if (row.previous_key_hash !== null) keys.push(`k:${row.environment}:${row.previous_key_hash.toString('base64')}`);
    for (const k of keys) this.#cache.delete(k);
    return keys;
  }

  /** Tells other instances to drop the same entries (before the operator gets the answer). */
  async #broadcast(keys: readonly string[]): Promise<void> {
    if (this.#dbs.embedded) return;
    try {
      await this.#dbs.live.notify(EVICT_CHANNEL, keys.join(' '));
    } catch {
      // The change is committed; other instances' entries expire with the TTL.
    }
  }

  async #lookupHash(sql: Sql, env: Environment, hash: Buffer): Promise<ResolvedCredential | null> {
    const [current] = await sql<CredentialRow[]>`
      select ${sql(CREDENTIAL_COLUMNS)} from credentials where key_hash = ${hash}`;
    if (current !== undefined) return resolve(current, env, current.key_hash, false);
    // Rule 3: the previous key is consulted only after the current-key lookup misses.
    const [previous] = await sql<CredentialRow[]>`
      select ${sql(CREDENTIAL_COLUMNS)} from credentials
       where previous_key_hash = ${hash} and previous_key_expires_at > now()`;
    if (previous === undefined || previous.previous_key_hash === null) return null;
    return resolve(previous, env, previous.previous_key_hash, true);
  }
}

function resolve(row: CredentialRow, env: Environment, hash: Buffer, viaPrevious: boolean): ResolvedCredential | null {
  if (row.status !== 'active' || row.environment !== env) return null;
  let notAfterMs = row.expires_at === null ? Number.POSITIVE_INFINITY : row.expires_at.getTime();
  if (viaPrevious) notAfterMs = Math.min(notAfterMs, row.previous_key_expires_at?.getTime() ?? 0);
  if (Date.now() >= notAfterMs) return null;
  const scopes = Object.freeze(parseScopes(row.scopes));
  const id = row.id as CredentialId;
  const clientId = row.client_id as ClientId;
  const principalId = row.principal_id as PrincipalId | null;
  return {
    id,
    clientId,
    principalId,
    environment: env,
    scopeText: row.scopes,
    scopes,
    allowlist: compileAllowlist(row.ip_allowlist),
    notAfterMs,
    hash,
    principalAuth:
      principalId === null
        ? null
        : Object.freeze({
            kind: 'principal',
            principalId,
            clientId,
            credentialId: id,
            environment: env,
            scopes,
            via: 'key',
          } satisfies PrincipalAuth),
  };
}
