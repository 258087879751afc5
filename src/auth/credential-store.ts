// Credential lookups with an LRU cache keyed by key hash, plus rotation and revocation.
//
// The cache never serves a revoked or expired key:
// - only active, unexpired credentials are cached, each with the instant it stops being valid
//   (its expires_at, or the end of the rotation grace window for a previous key), re-checked
//   on every use;
// - rotate and revoke evict every entry of the credential synchronously, before they answer;
// - a lookup that was in flight while an eviction happened does not fill the cache (epoch).
// Other instances on the same databases hear of every change through PostgreSQL LISTEN/NOTIFY
// (channel credential_evict, on the database the credential lives in) and drop the same
// entries. The notification comes from a trigger on the credentials table (migration 0090), so
// it is part of the change's own transaction: any writer, through any instance or none (an
// operator's SQL), reaches every instance when it commits, and a crash right after the commit
// loses nothing. The short TTL bounds staleness should a listening connection be down.
//
// Access tokens name the key they were minted with (a tag of its hash, claim `kh`): a token
// lives only while that key authenticates, so it dies when the key's rotation grace ends, not
// at its own TTL. The id entry carries the current and previous key tags for that check.
//
// Refresh ahead: a key in use is looked up again in the background once its entry is in the last
// fifth of its TTL (not while the database is known to be away), while the cached entry goes on
// serving until its own TTL, so staleness is bounded as before. A key in steady use then never
// waits for the database at the edge: on a slow database (docs/engine-durability.md "Slow
// PostgreSQL") a miss cost a whole round trip out of the decision's deadline every TTL.
import { createHash, timingSafeEqual } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type postgres from 'postgres';
import type { ClientId, CredentialId, PrincipalId } from '../domain/ids.js';
import { ApiError } from '../errors/registry.js';
import { Breaker } from '../storage/breaker.js';
import type { Databases, Sql } from '../storage/db.js';
import { CREDENTIAL_COLUMNS, type CredentialRow, credentialJson, type IssuedCredential } from './credentials.js';
import { type CompiledAllowlist, compileAllowlist } from './ip-allowlist.js';
import { generateApiKey, hashKey, keyEnvironment } from './keys.js';
import { parseScopes } from './scopes.js';
import type { Environment, PrincipalAuth } from './types.js';

/** Work that must commit with a credential change (its security-log record). */
// biome-ignore lint/complexity/noBannedTypes: postgres.js's own default type parameter
export type RecordInTransaction = (tx: postgres.TransactionSql<{}>, row: CredentialRow) => Promise<unknown>;

/** An active credential as the authenticator needs it. */
export interface ResolvedCredential {
  readonly id: CredentialId;
  readonly clientId: ClientId;
  readonly principalId: PrincipalId | null;
  /** The one agent an agent key acts for (docs/auth.md "Agent keys"); null for every other key. */
  readonly agentId: string | null;
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
  /** True when the key that matched is the previous key, inside its rotation grace window. */
  readonly viaPrevious: boolean;
  /** Tag of the key that matched (keyTag), frozen into the tokens minted with it. */
  readonly keyTag: string;
  /** Tag of the credential's current key. */
  readonly currentKeyTag: string;
  /** Tag of the rotated-out key, or null when the credential was never rotated. */
  readonly previousKeyTag: string | null;
  /** Epoch ms at which the rotated-out key (and every token minted with it) stops; 0 when none. */
  readonly previousKeyUntilMs: number;
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

/** Why a presented key does not authenticate: logged and counted, never shown to the caller. */
export type KeyRejection = 'malformed' | 'unknown' | 'revoked' | 'expired' | 'rotated_out';

/** A key that does not authenticate: why, and the credential it belongs to when one was found. */
export interface KeyRejected {
  readonly rejected: KeyRejection;
  readonly credentialId: string | null;
}

const MALFORMED: KeyRejected = Object.freeze({ rejected: 'malformed', credentialId: null });
const UNKNOWN: KeyRejected = Object.freeze({ rejected: 'unknown', credentialId: null });

export function isRejected(found: ResolvedCredential | KeyRejected): found is KeyRejected {
  return (found as Partial<KeyRejected>).rejected !== undefined;
}

/**
 * A short, non-reversible tag of a stored key hash: names the key inside an access token
 * without putting the stored hash itself in a readable JWT.
 */
export function keyTag(hash: Buffer): string {
  return createHash('sha256').update('asas-token-key:').update(hash).digest().subarray(0, 12).toString('base64url');
}

/**
 * True while the key a token was minted with still authenticates: it is the credential's
 * current key, or its previous key inside the rotation grace window. A token from before key
 * tags (no `kh`) is kept only while the credential was never rotated.
 */
export function tokenKeyLive(cred: ResolvedCredential, kh: string | undefined, nowMs: number): boolean {
  if (kh === undefined) return cred.previousKeyTag === null;
  if (kh === cred.currentKeyTag) return true;
  return kh === cred.previousKeyTag && nowMs < cred.previousKeyUntilMs;
}

export class CredentialStore {
  readonly #dbs: Databases;
  readonly #cache: LRUCache<string, ResolvedCredential>;
  /**
   * Keys (by the cache key of their hash) that authenticated on this instance within the last
   * day: what the failed-authentication throttle lets through from a throttled address (see
   * `proven`). Never a verdict: whatever it lets through is authenticated as any request is.
   */
  readonly #proven = new LRUCache<string, true>({ max: 100_000, ttl: 86_400_000 });
  /** Lookups on a cache miss fail at once while their database is known to be away. */
  readonly #availability: Readonly<Record<Environment, Breaker>> = {
    live: new Breaker(0),
    sandbox: new Breaker(0),
  };
  #epoch = 0;
  /** Past this remaining TTL a cache hit starts a background lookup (a fifth of the TTL). */
  readonly #refreshBelowMs: number;
  /** Cache keys with a background lookup in flight (one per key at a time). */
  readonly #refreshing = new Set<string>();

  constructor(dbs: Databases, options: CredentialStoreOptions = {}) {
    this.#dbs = dbs;
    const ttl = options.ttlMs ?? 10_000;
    this.#cache = new LRUCache({ max: options.max ?? 10_000, ttl });
    this.#refreshBelowMs = ttl / 5;
  }

  /**
   * A cache hit in the last fifth of its TTL with no background lookup in flight, while the
   * database is not known to be away (a refresh would fail at once, or take the breaker's one
   * probe); checked before allocating anything.
   */
  #refreshDue(env: Environment, cacheKey: string): boolean {
    return (
      this.#cache.getRemainingTTL(cacheKey) <= this.#refreshBelowMs &&
      !this.#refreshing.has(cacheKey) &&
      this.#availability[env].failures === 0
    );
  }

  /**
   * Looks a cached entry up again in the background and replaces it, or drops it when it no
   * longer authenticates; unless an eviction happened meanwhile (epoch), as for a lookup on a
   * miss. A failed lookup leaves the entry to its TTL.
   */
  #refreshAhead(cacheKey: string, lookup: () => Promise<ResolvedCredential | null>): void {
    this.#refreshing.add(cacheKey);
    const epoch = this.#epoch;
    lookup().then(
      (found) => {
        this.#refreshing.delete(cacheKey);
        if (epoch !== this.#epoch) return;
        if (found === null) this.#cache.delete(cacheKey);
        else this.#cache.set(cacheKey, found);
      },
      () => this.#refreshing.delete(cacheKey),
    );
  }

  /**
   * Subscribes to evictions made by other instances. Embedded PGlite serves one process only,
   * so there is nobody to hear from there.
   */
  async listen(): Promise<void> {
    if (this.#dbs.embedded) return;
    const onEvict = (payload: string) => {
      this.#epoch++;
      for (const key of payload.split(' ')) if (key.length > 0) this.#cache.delete(key);
    };
    await this.#dbs.live.listen(EVICT_CHANNEL, onEvict);
    await this.#dbs.sandbox.listen(EVICT_CHANNEL, onEvict);
  }

  /**
   * Resolves a presented API key: the current key of a credential, else (only after that
   * misses) a previous key inside its rotation grace window. The key is looked up only in the
   * database its prefix names. Null for anything that does not authenticate.
   */
  async findByKey(rawKey: string): Promise<ResolvedCredential | null> {
    const found = await this.resolveKey(rawKey);
    return isRejected(found) ? null : found;
  }

  /** As findByKey, but says why a key does not authenticate (for the failure log and throttle). */
  async resolveKey(rawKey: string): Promise<ResolvedCredential | KeyRejected> {
    const env = keyEnvironment(rawKey);
    if (env === null) return MALFORMED;
    // The embedded sandbox never created yet holds no credentials: an unknown test key does not
    // create it.
    if (!this.#dbs.exists(env)) return UNKNOWN;
    const hash = hashKey(rawKey);
    const cacheKey = `k:${env}:${hash.toString('base64')}`;
    let cred = this.#cache.get(cacheKey);
    const looked = cred === undefined;
    if (cred === undefined) {
      const epoch = this.#epoch;
      const found = await this.#lookupKey(env, hash);
      if (isRejected(found)) return found;
      if (epoch === this.#epoch) this.#cache.set(cacheKey, found);
      cred = found;
    } else if (this.#refreshDue(env, cacheKey)) {
      this.#refreshAhead(cacheKey, () =>
        this.#lookupKey(env, hash).then((found) => {
          if (isRejected(found)) return null;
          this.#proven.set(cacheKey, true);
          return found;
        }),
      );
    }
    if (Date.now() >= cred.notAfterMs) {
      this.#cache.delete(cacheKey);
      return { rejected: cred.viaPrevious ? 'rotated_out' : 'expired', credentialId: cred.id };
    }
    if (!timingSafeEqual(cred.hash, hash)) return UNKNOWN;
    // Only after a lookup, not on every cache hit (the /authorize hot path): a key in use is
    // looked up again at least every cache TTL, which renews it here well within the day.
    if (looked) this.#proven.set(cacheKey, true);
    return cred;
  }

  /**
   * True when this key authenticated on this instance within the last day, from any address:
   * a throttled source may still use it (src/auth/failure-guard.ts). No database lookup, so a
   * guesser learns nothing and costs nothing; a key that was revoked since is refused by the
   * authentication that follows.
   */
  proven(rawKey: string): boolean {
    const env = keyEnvironment(rawKey);
    if (env === null) return false;
    return this.#proven.has(`k:${env}:${hashKey(rawKey).toString('base64')}`);
  }

  /** The active credential with this id in `env` (access tokens check it on every use). */
  async findById(env: Environment, id: string): Promise<ResolvedCredential | null> {
    const cacheKey = `i:${env}:${id}`;
    let cred = this.#cache.get(cacheKey);
    if (cred === undefined) {
      const epoch = this.#epoch;
      const found = await this.#lookupId(env, id);
      if (found === null) return null;
      if (epoch === this.#epoch) this.#cache.set(cacheKey, found);
      cred = found;
    } else if (this.#refreshDue(env, cacheKey)) this.#refreshAhead(cacheKey, () => this.#lookupId(env, id));
    if (Date.now() >= cred.notAfterMs) {
      this.#cache.delete(cacheKey);
      return null;
    }
    return cred;
  }

  /** Finds a credential by id in either database (one never created holds none). */
  async locate(id: string): Promise<CredentialRow | null> {
    for (const env of ['live', 'sandbox'] as const) {
      if (!this.#dbs.exists(env)) continue;
      const sql = this.#dbs.forEnv(env);
      const [row] = await sql<CredentialRow[]>`select ${sql(CREDENTIAL_COLUMNS)} from credentials where id = ${id}`;
      if (row !== undefined) return row;
    }
    return null;
  }

  /**
   * Issues a new key for the same credential id. The previous key keeps authenticating for
   * `graceSeconds` (0 = not at all). A revoked or expired credential cannot be rotated.
   * `record` runs in the update's transaction (the security log), so neither commits alone.
   */
  async rotate(id: string, graceSeconds: number, record: RecordInTransaction): Promise<IssuedCredential> {
    const current = await this.locate(id);
    if (current === null) throw new ApiError('credential_not_found');
    if (current.status !== 'active') throw new ApiError('conflict', 'The credential is revoked; issue a new one.');
    if (current.expires_at !== null && current.expires_at.getTime() <= Date.now()) {
      throw new ApiError('conflict', 'The credential has expired; issue a new one.');
    }
    const apiKey = generateApiKey(current.environment);
    const sql = this.#dbs.forEnv(current.environment);
    const row = await sql.begin(async (tx) => {
      const [updated] = await tx<CredentialRow[]>`
        update credentials
           set previous_key_hash = key_hash,
               previous_key_expires_at = now() + make_interval(secs => ${graceSeconds}),
               key_hash = ${hashKey(apiKey)}
         where id = ${id} and status = 'active'
        returning ${sql(CREDENTIAL_COLUMNS)}`;
      if (updated !== undefined) await record(tx, updated);
      return updated;
    });
    // Other instances hear of it from the credentials trigger when the update commits.
    this.#evict(current);
    if (row === undefined) throw new ApiError('conflict', 'The credential is revoked; issue a new one.');
    this.#evict(row);
    return { credential: credentialJson(row), apiKey };
  }

  /**
   * Revokes at once and for good; every key and token of the credential stops working.
   * `record` runs in the update's transaction, as for rotate.
   */
  async revoke(id: string, record: RecordInTransaction): Promise<CredentialRow> {
    const current = await this.locate(id);
    if (current === null) throw new ApiError('credential_not_found');
    const sql = this.#dbs.forEnv(current.environment);
    const row = await sql.begin(async (tx) => {
      const [updated] = await tx<CredentialRow[]>`
        update credentials set status = 'revoked', revoked_at = coalesce(revoked_at, now())
         where id = ${id}
        returning ${sql(CREDENTIAL_COLUMNS)}`;
      if (updated !== undefined) await record(tx, updated);
      return updated;
    });
    this.#evict(current);
    if (row === undefined) throw new ApiError('credential_not_found');
    return row;
  }

  /**
   * Drops every cache entry of a credential (its current and previous key, its id) in this
   * instance, before the change is answered. The keys match the trigger's payload (0090).
   */
  #evict(row: CredentialRow): void {
    this.#epoch++;
    this.#cache.delete(`k:${row.environment}:${row.key_hash.toString('base64')}`);
    this.#cache.delete(`i:${row.environment}:${row.id}`);
    if (row.previous_key_hash !== null) {
      this.#cache.delete(`k:${row.environment}:${row.previous_key_hash.toString('base64')}`);
    }
  }

  #lookupKey(env: Environment, hash: Buffer): Promise<ResolvedCredential | KeyRejected> {
    return this.#availability[env].run(() => this.#lookupHash(this.#dbs.forEnv(env), env, hash));
  }

  /** The active credential with this id, or null (findById's lookup). */
  async #lookupId(env: Environment, id: string): Promise<ResolvedCredential | null> {
    const sql = this.#dbs.forEnv(env);
    const [row] = await this.#availability[env].run(
      () => sql<CredentialRow[]>`select ${sql(CREDENTIAL_COLUMNS)} from credentials where id = ${id}`,
    );
    const resolved = row === undefined ? null : resolve(row, env, row.key_hash, false);
    return resolved === null || isRejected(resolved) ? null : resolved;
  }

  /**
   * One statement for every key that misses the cache, found or not, so an unknown, a revoked
   * and a rotated-out key cost the database the same single round trip. Rule 3's order holds:
   * a current key wins over a previous one (the order by), and a previous key counts only
   * inside its grace window (resolve).
   */
  async #lookupHash(sql: Sql, env: Environment, hash: Buffer): Promise<ResolvedCredential | KeyRejected> {
    const [row] = await sql<CredentialRow[]>`
      select ${sql(CREDENTIAL_COLUMNS)} from credentials
       where key_hash = ${hash} or previous_key_hash = ${hash}
       order by (key_hash = ${hash}) desc
       limit 1`;
    if (row === undefined) return UNKNOWN;
    if (row.key_hash.equals(hash)) return resolve(row, env, row.key_hash, false);
    return resolve(row, env, hash, true);
  }
}

function resolve(
  row: CredentialRow,
  env: Environment,
  hash: Buffer,
  viaPrevious: boolean,
): ResolvedCredential | KeyRejected {
  if (row.environment !== env) return UNKNOWN;
  if (row.status !== 'active') return { rejected: 'revoked', credentialId: row.id };
  const expiresAtMs = row.expires_at === null ? Number.POSITIVE_INFINITY : row.expires_at.getTime();
  const previousKeyUntilMs = row.previous_key_hash === null ? 0 : (row.previous_key_expires_at?.getTime() ?? 0);
  const notAfterMs = viaPrevious ? Math.min(expiresAtMs, previousKeyUntilMs) : expiresAtMs;
  const now = Date.now();
  if (now >= expiresAtMs) return { rejected: 'expired', credentialId: row.id };
  if (now >= notAfterMs) return { rejected: 'rotated_out', credentialId: row.id };
  const scopes = Object.freeze(parseScopes(row.scopes));
  const id = row.id as CredentialId;
  const clientId = row.client_id as ClientId;
  const principalId = row.principal_id as PrincipalId | null;
  const agentId = row.agent_id;
  return {
    id,
    clientId,
    principalId,
    agentId,
    environment: env,
    scopeText: row.scopes,
    scopes,
    allowlist: compileAllowlist(row.ip_allowlist),
    notAfterMs,
    hash,
    viaPrevious,
    keyTag: keyTag(hash),
    currentKeyTag: keyTag(row.key_hash),
    previousKeyTag: row.previous_key_hash === null ? null : keyTag(row.previous_key_hash),
    previousKeyUntilMs,
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
            ...(agentId === null ? {} : { agentId }),
          } satisfies PrincipalAuth),
  };
}
