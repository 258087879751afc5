// OAuth2 access tokens: compact JWTs signed EdDSA (Ed25519) with the service's signing key.
// The key is generated once and kept in the live database so tokens survive a restart and
// every instance signs alike; its public half is published at /.well-known/jwks.json.
// Signing, verification and the JWK export are jose's (RFC 7515/7517/7519); what is ours is the
// key's storage (sealed at rest), the claims and the verified-token cache.
import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import {
  type CryptoKey,
  createLocalJWKSet,
  exportJWK,
  type JWTHeaderParameters,
  type JWTPayload,
  jwtVerify,
  SignJWT,
} from 'jose';
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { randomToken } from '../domain/ids.js';
import type { SecretBox } from '../secrets/box.js';
import { signingKeyAad } from '../secrets/service.js';
import type { Sql } from '../storage/db.js';
import type { SigningKeyRow } from '../storage/rows/signing-keys.js';
import type { Environment } from './types.js';

export const TOKEN_ISSUER = 'agent-spending-authorization';

/** Longer values are not tokens of this service; refusing them early bounds an attacker's work. */
const MAX_TOKEN_LENGTH = 4096;

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
  /**
   * Tag of the API key the token was minted with (credential-store.ts keyTag): the token dies
   * with that key, e.g. when its rotation grace window ends. Absent on tokens minted before.
   */
  kh?: string;
  /** An agent key's agent (docs/auth.md "Agent keys"): the token acts for it alone. */
  agt?: string;
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

/** A signing_keys row with its private half opened and its JWK typed. */
type SigningKey = Pick<SigningKeyRow, 'kid' | 'active'> & { private_key_pkcs8: Buffer; public_jwk: PublicJwk };

type KeyResolver = (header: JWTHeaderParameters) => Promise<CryptoKey | KeyObject>;

/** jwtVerify's options, one object for every call (no per-request allocation). */
const VERIFY_OPTIONS = Object.freeze({
  algorithms: ['EdDSA'],
  issuer: TOKEN_ISSUER,
  typ: 'JWT',
  requiredClaims: ['sub', 'iat', 'exp'],
});

export class TokenService {
  readonly #kid: string;
  readonly #privateKey: KeyObject;
  readonly #header: JWTHeaderParameters;
  /** The published key set; verification selects from the very document /.well-known/jwks.json serves. */
  readonly #jwks: { keys: PublicJwk[] };
  readonly #keyFor: KeyResolver;
  /** Signature checks are the costly part of a Bearer request; a verified token is remembered. */
  readonly #verified = new LRUCache<string, TokenClaims>({ max: 10_000 });

  private constructor(active: SigningKey, all: readonly SigningKey[]) {
    this.#kid = active.kid;
    this.#privateKey = createPrivateKey({ key: active.private_key_pkcs8, format: 'der', type: 'pkcs8' });
    this.#header = Object.freeze({ alg: 'EdDSA', typ: 'JWT', kid: active.kid });
    this.#jwks = { keys: all.map((k) => k.public_jwk) };
    const keySet = createLocalJWKSet(this.#jwks);
    // Every token of this service names its key: one without a kid is not ours.
    this.#keyFor = (header) =>
      typeof header.kid === 'string' ? keySet(header) : Promise.reject(new Error('token without a kid'));
  }

  /**
   * Loads the signing key from the live database, generating it on first start. The private
   * key is stored sealed under the secrets key (src/secrets/, docs/secrets.md).
   */
  static async load(live: Sql, log: Logger, box: SecretBox): Promise<TokenService> {
    let rows = await loadSigningKeys(live, box);
    if (!rows.some((r) => r.active)) {
      const { kid, row } = await newSigningKey();
      // Two instances starting together: the unique index on the active key lets one win.
      const inserted = await live`
        insert into signing_keys (kid, private_key_sealed, public_jwk)
        values (${kid}, ${box.seal(row.private_key_pkcs8, signingKeyAad(kid))}, ${live.json(row.public_jwk as never)})
        on conflict do nothing returning kid`;
      if (inserted.length > 0) log.info({ kid }, 'generated the token signing key');
      rows = await loadSigningKeys(live, box);
    }
    const active = rows.find((r) => r.active);
    if (active === undefined) throw new Error('no active token signing key');
    return new TokenService(active, rows);
  }

  /** A service with a fresh key held in memory only (the micro-benchmarks; nothing is stored). */
  static async ephemeral(): Promise<TokenService> {
    const { row } = await newSigningKey();
    return new TokenService(row, [row]);
  }

  get kid(): string {
    return this.#kid;
  }

  jwks(): { keys: PublicJwk[] } {
    return this.#jwks;
  }

  /** Signs an access token; `expiresAtSec` is the absolute expiry (seconds since epoch). */
  mint(
    claims: Omit<TokenClaims, 'iss' | 'iat' | 'exp' | 'jti'>,
    issuedAtSec: number,
    expiresAtSec: number,
  ): Promise<string> {
    const payload: TokenClaims = {
      iss: TOKEN_ISSUER,
      sub: claims.sub,
      client_id: claims.client_id,
      cid: claims.cid,
      env: claims.env,
      scope: claims.scope,
      ...(claims.kh === undefined ? {} : { kh: claims.kh }),
      ...(claims.agt === undefined ? {} : { agt: claims.agt }),
      iat: issuedAtSec,
      exp: expiresAtSec,
      jti: randomToken(22),
    };
    return new SignJWT(payload as unknown as JWTPayload).setProtectedHeader(this.#header).sign(this.#privateKey);
  }

  /**
   * The claims of a token verified before and not expired since; undefined when it is not in
   * the cache (verify() then decides). No promise, no allocation: the Bearer hot path.
   */
  cached(token: string): TokenClaims | undefined {
    const claims = this.#verified.get(token);
    return claims !== undefined && Date.now() < claims.exp * 1000 ? claims : undefined;
  }

  /** The claims of a genuine, unexpired token of this service; null for anything else. */
  async verify(token: string): Promise<TokenClaims | null> {
    const hit = this.cached(token);
    if (hit !== undefined) return hit;
    if (token.length > MAX_TOKEN_LENGTH) return null;
    let payload: JWTPayload;
    try {
      // Signature (the key the header's kid names in our key set), alg, typ, iss, exp.
      ({ payload } = await jwtVerify(token, this.#keyFor, VERIFY_OPTIONS));
    } catch {
      return null;
    }
    const claims = ownClaims(payload);
    if (claims === null) return null;
    this.#verified.set(token, claims, { ttl: Math.max(1, claims.exp * 1000 - Date.now()) });
    return claims;
  }
}

/** The payload, when it carries every claim of ours with the right type. */
function ownClaims(p: JWTPayload): TokenClaims | null {
  const c = p as Partial<TokenClaims>;
  if (
    typeof c.sub !== 'string' ||
    typeof c.client_id !== 'string' ||
    typeof c.cid !== 'string' ||
    (c.env !== 'live' && c.env !== 'sandbox') ||
    typeof c.scope !== 'string' ||
    (c.kh !== undefined && typeof c.kh !== 'string') ||
    (c.agt !== undefined && typeof c.agt !== 'string') ||
    typeof c.exp !== 'number' ||
    typeof c.iat !== 'number'
  ) {
    return null;
  }
  return c as TokenClaims;
}

/** A new Ed25519 key: its PKCS#8 private half (stored sealed) and its public JWK (published). */
async function newSigningKey(): Promise<{ kid: string; row: SigningKey }> {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const kid = `sk_${randomToken(16)}`;
  const { x } = await exportJWK(publicKey);
  if (x === undefined) throw new Error('the Ed25519 public key exported without x');
  return {
    kid,
    row: {
      kid,
      private_key_pkcs8: privateKey.export({ format: 'der', type: 'pkcs8' }),
      public_jwk: { kty: 'OKP', crv: 'Ed25519', x, kid, use: 'sig', alg: 'EdDSA' },
      active: true,
    },
  };
}

/**
 * Every signing key, its private half opened. Start-up has sealed any plaintext row; one written
 * since by a version before migration 0100 (a rolling upgrade) is read as it is.
 */
async function loadSigningKeys(live: Sql, box: SecretBox): Promise<SigningKey[]> {
  const rows = await live<
    (Pick<SigningKeyRow, 'kid' | 'private_key_pkcs8' | 'private_key_sealed' | 'active'> & { public_jwk: PublicJwk })[]
  >`
    select kid, private_key_pkcs8, private_key_sealed, public_jwk, active from signing_keys order by created_at`;
  return rows.map((r) => ({
    kid: r.kid,
    public_jwk: r.public_jwk,
    active: r.active,
    // One of the two is set: the re-seal pass at start refuses a row with neither (src/secrets/service.ts).
    private_key_pkcs8:
      r.private_key_sealed === null
        ? (r.private_key_pkcs8 as Buffer)
        : box.open(r.private_key_sealed, signingKeyAad(r.kid)),
  }));
}
