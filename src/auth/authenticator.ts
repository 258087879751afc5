// Placeholder until the credential store lands: every authenticated route answers 401.
import { ApiError } from '../errors/registry.js';
import type { AuthContext, Authenticator } from './types.js';

export function createAuthenticator(): Authenticator {
  return {
    async authenticate(): Promise<AuthContext | null> {
      throw new ApiError('unauthorized');
    },
  };
}
