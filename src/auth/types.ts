// Who a request is, once authenticated. Shared by the edge and every area's handlers.
import type { ClientId, CredentialId, PrincipalId } from '../domain/ids.js';
import type { RequestContext, RouteDef } from '../http/types.js';

export type Environment = 'live' | 'sandbox';

export interface ClientAuth {
  readonly kind: 'client';
  readonly clientId: ClientId;
  readonly credentialId: CredentialId;
  readonly environment: Environment;
  /** Parsed scope list; empty means full access. */
  readonly scopes: readonly string[];
}

export interface PrincipalAuth {
  readonly kind: 'principal';
  readonly principalId: PrincipalId;
  readonly clientId: ClientId;
  readonly credentialId: CredentialId;
  readonly environment: Environment;
  readonly scopes: readonly string[];
  /** How the caller authenticated: an API key or an OAuth2 access token. */
  readonly via: 'key' | 'token';
}

export interface AdminAuth {
  readonly kind: 'admin';
}

export type AuthContext = ClientAuth | PrincipalAuth | AdminAuth;

/**
 * Authenticates a request for a route; throws ApiError (401 unauthorized, 403 forbidden) or
 * returns who the caller is. Implemented in src/auth/authenticator.ts.
 */
export interface Authenticator {
  authenticate(ctx: RequestContext, route: RouteDef): Promise<AuthContext | null>;
}
