// OAuth2 access tokens: compact JWTs signed EdDSA (Ed25519) with the service's signing key.
// The key is generated once and kept in the live database so tokens survive a restart and
// every instance signs alike; its public half is published at /.well-known/jwks.json.
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, sign, verify } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { randomToken } from '../domain/ids.js';
import type { Sql } from '../storage/db.js';
import type { Environment } from './types.js';

export const TOKEN_ISSUER = 'agent-spending-authorization';

/** The claims an access token carries: who, which credential, frozen scope and environment. */
export interface TokenClaims {
  iss: string;
  /** The Principal id. */
  sub: string;
  client_id: string;
  /** The credential (acr_) the token was minted from. */
  cid: string;
  env: Environment;
  /** Comma-separated scope list frozen at mint time ("" = full access). */
  scope: string;
  iat: number;
  exp: number;
  jti: string;
}

export interface PublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  use: 'sig';
  alg: 'EdDSA';
}

interface SigningKeyRow {
  kid: string;
  private_key_pkcs8: Buffer;
  public_jwk: PublicJwk;
  active: boolean;
}

export class TokenService {
  readonly #kid: string;
  readonly #privateKey: KeyObject;
  readonly #publicKeys: ReadonlyMap<string, KeyObject>;
  readonly #jwks: { keys: PublicJwk[] };
  readonly #headerB64: string;
  /** Signature checks are the costly part of a Bearer request; a verified token is remembered. */
  readonly #verified = new LRUCache<string, TokenClaims>({ max: 10_000 });

  private constructor(active: SigningKeyRow, all: readonly SigningKeyRow[]) {
    this.#kid = active.kid;
    this.#privateKey = createPrivateKey({ key: active.private_key_pkcs8, format: 'der', type: 'pkcs8' });
    const publicKeys = new Map<string, KeyObject>();
    for (const k of all) publicKeys.set(k.kid, createPublicKey({ key: k.public_jwk as never, format: 'jwk' }));
    this.#publicKeys = publicKeys;
    this.#jwks = { keys: all.map((k) => k.public_jwk) };
    this.#headerB64 = b64url(JSON.stringify({ alg: 'EdDSA', typ: 'JWT', kid: active.kid }));
  }

  /** Loads the signing key from the live database, generating it on first start. */
  static async load(live: Sql, log: Logger): Promise<TokenService> {
    let rows = await live<SigningKeyRow[]>`
      select kid, private_key_pkcs8, public_jwk, active from signing_keys order by created_at`;
    if (!rows.some((r) => r.active)) {
      const { privateKey, publicKey } = generateKeyPairSync('ed25519');
      const kid = `sk_${randomToken(16)}`;
      const jwk = publicKey.export({ format: 'jwk' }) as { x: string };
      const publicJwk: PublicJwk = { kty: 'OKP', crv: 'Ed25519', x: jwk.x, kid, use: 'sig', alg: 'EdDSA' };
      const der = privateKey.export({ format: 'der', type: 'pkcs8' });
      // Two instances starting together: the unique index on the active key lets one win.
      const inserted = await live`
        insert into signing_keys (kid, private_key_pkcs8, public_jwk)
        values (${kid}, ${der}, ${live.json(publicJwk as never)})
        on conflict do nothing returning kid`;
      if (inserted.length > 0) log.info({ kid }, 'generated the token signing key');
      rows = await live<SigningKeyRow[]>`
        select kid, private_key_pkcs8, public_jwk, active from signing_keys order by created_at`;
    }
    const active = rows.find((r) => r.active);
    if (active === undefined) throw new Error('no active token signing key');
    return new TokenService(active, rows);
  }

  get kid(): string {
    return this.#kid;
  }

  jwks(): { keys: PublicJwk[] } {
    return this.#jwks;
  }

  /** Signs an access token; `expiresAtSec` is the absolute expiry (seconds since epoch). */
  mint(claims: Omit<TokenClaims, 'iss' | 'iat' | 'exp' | 'jti'>, issuedAtSec: number, expiresAtSec: number): string {
    const payload: TokenClaims = {
      iss: TOKEN_ISSUER,
      sub: claims.sub,
      client_id: claims.client_id,
      cid: claims.cid,
      env: claims.env,
      scope: claims.scope,
      iat: issuedAtSec,
      exp: expiresAtSec,
      jti: randomToken(22),
    };
    const input = `${this.#headerB64}.${b64url(JSON.stringify(payload))}`;
    return `${input}.${sign(null, Buffer.from(input), this.#privateKey).toString('base64url')}`;
  }

  /** The claims of a genuine, unexpired token of this service; null for anything else. */
  verify(token: string): TokenClaims | null {
    let claims = this.#verified.get(token);
    if (claims === undefined) {
      const parsed = this.#verifySignature(token);
      if (parsed === null) return null;
      claims = parsed;
      this.#verified.set(token, claims, { ttl: Math.max(1, claims.exp * 1000 - Date.now()) });
    }
    return Date.now() < claims.exp * 1000 ? claims : null;
  }

  #verifySignature(token: string): TokenClaims | null {
    if (token.length > 4096) return null;
    const parts = token.split('.');
    if (parts.length !== 3) return null;
    const [h, p, s] = parts as [string, string, string];
    let header: unknown;
    let payload: unknown;
    try {
      header = JSON.parse(Buffer.from(h, 'base64url').toString('utf8'));
      payload = JSON.parse(Buffer.from(p, 'base64url').toString('utf8'));
    } catch {
      return null;
    }
    if (!isObject(header) || header.alg !== 'EdDSA' || typeof header.kid !== 'string') return null;
    const key = this.#publicKeys.get(header.kid);
    if (key === undefined) return null;
    if (!verify(null, Buffer.from(`${h}.${p}`), key, Buffer.from(s, 'base64url'))) return null;
    if (!isObject(payload)) return null;
    const c = payload as Partial<TokenClaims>;
    if (
      c.iss !== TOKEN_ISSUER ||
      typeof c.sub !== 'string' ||
      typeof c.client_id !== 'string' ||
      typeof c.cid !== 'string' ||
      (c.env !== 'live' && c.env !== 'sandbox') ||
      typeof c.scope !== 'string' ||
      typeof c.exp !== 'number' ||
      typeof c.iat !== 'number'
    ) {
      return null;
    }
    return c as TokenClaims;
  }
}

function b64url(s: string): string {
  return Buffer.from(s, 'utf8').toString('base64url');
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
