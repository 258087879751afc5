// The authenticator the edge calls for every route with auth !== 'none' (SPEC.md
// "Authentication"). Every credential failure (missing, malformed, unknown, expired, revoked,
// wrong plane, id/secret mismatch) is the same 401 unauthorized; a valid credential used from
// a non-allowlisted address or outside its scopes is 403 forbidden; a wrong or missing
// X-Admin-Key is 403 forbidden.
import { adminKeyRejected } from '../audit/security-log.js';
import type { ClientId, CredentialId, PrincipalId } from '../domain/ids.js';
import { ApiError } from '../errors/registry.js';
import type { Authenticator, RequestContext, RouteDef } from '../http/types.js';
import type { Databases } from '../storage/db.js';
import type { PrincipalRow } from '../storage/rows/principals.js';
import type { AdminKeyVerifier } from './admin-key.js';
import { assertAgentRoute } from './agent-keys.js';
import { type CredentialStore, isRejected, type ResolvedCredential, tokenKeyLive } from './credential-store.js';
import { AuthFailure, type AuthFailureClass } from './failure-guard.js';
import { ipAllowed } from './ip-allowlist.js';
import { parseScopes, scopeAllows } from './scopes.js';
import type { TokenService } from './tokens.js';
import type { AdminAuth, AuthContext, ClientAuth, PrincipalAuth } from './types.js';

const ADMIN: AdminAuth = Object.freeze({ kind: 'admin' });

export interface AuthenticatorDeps {
  dbs: Databases;
  credentials: CredentialStore;
  tokens: TokenService;
  admin: AdminKeyVerifier;
  /** SPEC.md rule 3's "when client tenancy is enabled" (CLIENT_TENANCY); off: rule 1 holds. */
  clientTenancy: boolean;
}

export function createAuthenticator(deps: AuthenticatorDeps): Authenticator {
  return new CredentialAuthenticator(deps);
}

export class CredentialAuthenticator implements Authenticator {
  readonly #deps: AuthenticatorDeps;

  constructor(deps: AuthenticatorDeps) {
    this.#deps = deps;
  }

  async authenticate(ctx: RequestContext, route: RouteDef): Promise<AuthContext | null> {
    switch (route.auth) {
      case 'none':
        return null;
      case 'admin':
        if (!this.#deps.admin.verify(ctx.headers['x-admin-key'])) throw adminKeyRejected(this.#deps.dbs.live, ctx);
        return ADMIN;
      case 'client':
        return this.#client(ctx);
      case 'principal': {
        const key = ctx.headers['x-api-key'];
        if (key !== undefined) return this.#principalKey(ctx, route, key);
        return this.#bearer(ctx, route);
      }
      case 'principal_key': {
        const key = ctx.headers['x-api-key'];
        if (key === undefined) throw unauthorized('missing');
        return this.#principalKey(ctx, route, key);
      }
    }
  }

  /**
   * True when the request carries a credential this instance already knows to be valid, without
   * a lookup: the operator key, an API key that authenticated within the last day, or an access
   * token verified before. A throttled source may still use it (src/auth/failure-guard.ts).
   */
  known(ctx: RequestContext, route: RouteDef): boolean {
    switch (route.auth) {
      case 'none':
        return false;
      case 'admin':
        return this.#deps.admin.verify(ctx.headers['x-admin-key']);
      case 'client':
      case 'principal_key': {
        const key = ctx.headers['x-api-key'];
        return key !== undefined && this.#deps.credentials.proven(key);
      }
      case 'principal': {
        const key = ctx.headers['x-api-key'];
        if (key !== undefined) return this.#deps.credentials.proven(key);
        const header = ctx.headers.authorization;
        if (header === undefined || header.slice(0, 7).toLowerCase() !== 'bearer ') return false;
        return this.#deps.tokens.cached(header.slice(7).trim()) !== undefined;
      }
    }
  }

  /**
   * Resolves a Principal API key (SPEC.md rule 3): the current key, then a previous key in its
   * grace window (both inside findByKey), then, with CLIENT_TENANCY on, a Client key whose
   * Client owns exactly one Principal in that environment. Also used by the token endpoint. When
   * it does not authenticate, the reason (for the failure log); IP and scope are not checked here.
   */
  async resolvePrincipalKey(key: string): Promise<{ cred: ResolvedCredential; auth: PrincipalAuth } | AuthFailure> {
    const cred = await this.#deps.credentials.resolveKey(key);
    if (isRejected(cred)) return new AuthFailure(cred.rejected, { credentialId: cred.credentialId });
    if (cred.principalAuth !== null) return { cred, auth: cred.principalAuth };
    // A Client key on the Principal plane fails authentication (SPEC.md rule 1) unless tenancy is on.
    if (!this.#deps.clientTenancy) return new AuthFailure('wrong_plane', { credentialId: cred.id });
    const sql = this.#deps.dbs.forEnv(cred.environment);
    const owned = await sql<Pick<PrincipalRow, 'id'>[]>`
      select id from principals where client_id = ${cred.clientId} limit 2`;
    if (owned.length !== 1) return new AuthFailure('no_single_principal', { credentialId: cred.id });
    const auth: PrincipalAuth = {
      kind: 'principal',
      principalId: (owned[0] as { id: string }).id as PrincipalId,
      clientId: cred.clientId,
      credentialId: cred.id,
      environment: cred.environment,
      scopes: cred.scopes,
      via: 'key',
    };
    return { cred, auth };
  }

  async #client(ctx: RequestContext): Promise<ClientAuth> {
    const key = ctx.headers['x-api-key'];
    if (key === undefined) throw unauthorized('missing');
    const cred = await this.#deps.credentials.resolveKey(key);
    if (isRejected(cred)) throw unauthorized(cred.rejected, cred.credentialId);
    // A Principal key on the Client plane fails authentication (SPEC.md rule 1).
    if (cred.principalId !== null) throw unauthorized('wrong_plane', cred.id);
    checkOrigin(cred, ctx, null);
    return {
      kind: 'client',
      clientId: cred.clientId,
      credentialId: cred.id,
      environment: cred.environment,
      scopes: cred.scopes,
    };
  }

  async #principalKey(ctx: RequestContext, route: RouteDef, key: string): Promise<PrincipalAuth> {
    const found = await this.resolvePrincipalKey(key);
    if (found instanceof AuthFailure) throw found;
    checkOrigin(found.cred, ctx, route);
    return found.auth;
  }

  async #bearer(ctx: RequestContext, route: RouteDef): Promise<PrincipalAuth> {
    const header = ctx.headers.authorization;
    if (header === undefined) throw unauthorized('missing');
    if (header.length < 8 || header.slice(0, 7).toLowerCase() !== 'bearer ') throw unauthorized('malformed');
    const token = header.slice(7).trim();
    // A token verified before is a synchronous cache hit; only a new one awaits jose's check.
    const claims = this.#deps.tokens.cached(token) ?? (await this.#deps.tokens.verify(token));
    if (claims === null) throw unauthorized('token_invalid');
    // The credential is checked on every use (a cached entry, dropped on every change on any
    // instance): a revoked or expired credential kills its tokens at once, and a token dies with
    // the key it was minted with, e.g. when that key's rotation grace window ends.
    const cred = await this.#deps.credentials.findById(claims.env, claims.cid);
    if (cred === null || cred.clientId !== claims.client_id)
      throw unauthorized('token_credential_inactive', claims.cid);
    if (!tokenKeyLive(cred, claims.kh, Date.now())) throw unauthorized('token_key_retired', claims.cid);
    // An agent key's tokens name its agent; a credential's binding never changes, so a mismatch
    // is not a token of ours.
    if ((cred.agentId ?? undefined) !== claims.agt) throw unauthorized('token_invalid', claims.cid);
    checkIp(cred, ctx);
    // The token's scope and agent binding were frozen at mint time; they are what applies.
    const scopes = parseScopes(claims.scope);
    if (claims.agt !== undefined) assertAgentRoute(claims.agt, route, ctx);
    else if (!scopeAllows(scopes, ctx.path)) {
      throw new ApiError('forbidden', 'The credential does not cover this path.');
    }
    const auth: PrincipalAuth = {
      kind: 'principal',
      principalId: claims.sub as PrincipalId,
      clientId: claims.client_id as ClientId,
      credentialId: claims.cid as CredentialId,
      environment: claims.env,
      scopes,
      via: 'token',
    };
    return claims.agt === undefined ? auth : { ...auth, agentId: claims.agt };
  }
}

function unauthorized(failure: AuthFailureClass, credentialId: string | null = null): AuthFailure {
  return new AuthFailure(failure, { credentialId });
}

function checkIp(cred: ResolvedCredential, ctx: RequestContext): void {
  if (!ipAllowed(cred.allowlist, ctx.ip)) throw originNotAllowed(cred);
}

/** 403 for a valid credential used from outside its allowlist; counted as a failed authentication. */
export function originNotAllowed(cred: ResolvedCredential): AuthFailure {
  return new AuthFailure('ip_not_allowed', {
    code: 'forbidden',
    message: 'The request origin is not allowed for this credential.',
    credentialId: cred.id,
  });
}

/**
 * IP allowlist first (checked before anything else is processed), then scope; an agent key's
 * route and agent in place of scope (agent-keys.ts).
 */
function checkOrigin(cred: ResolvedCredential, ctx: RequestContext, route: RouteDef | null): void {
  checkIp(cred, ctx);
  if (cred.agentId !== null) {
    if (route === null) throw new ApiError('forbidden', 'The credential does not cover this path.');
    assertAgentRoute(cred.agentId, route, ctx);
    return;
  }
  if (!scopeAllows(cred.scopes, ctx.path)) {
    throw new ApiError('forbidden', 'The credential does not cover this path.');
  }
}
