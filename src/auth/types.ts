// Who a request is, once authenticated. Shared by the edge and every area's handlers.

import type { Environment } from '../domain/environment.js';
import type { ClientId, CredentialId, PrincipalId } from '../domain/ids.js';

export type { Environment };

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
  /**
   * Set for an agent key (or a token minted from one): the one agent of the Principal the
   * credential acts for; it reaches only the routes that declare `agentKey` (src/auth/agent-keys.ts).
   */
  readonly agentId?: string;
}

export interface AdminAuth {
  readonly kind: 'admin';
}

export type AuthContext = ClientAuth | PrincipalAuth | AdminAuth;
