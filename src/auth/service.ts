// Builds the authentication runtime at start: the credential store (cached lookups), the
// token signing key (from the live database), the operator key and the authenticator.
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import type { Authenticator } from '../http/types.js';
import { ReceiptKeys } from '../receipts/keys.js';
import type { SecretBox } from '../secrets/box.js';
import type { Databases } from '../storage/db.js';
import { type AdminKeyVerifier, loadAdminKey } from './admin-key.js';
import { CredentialAuthenticator } from './authenticator.js';
import { CredentialStore, type ResolvedCredential } from './credential-store.js';
import { AuthFailureGuard, GuardedAuthenticator } from './failure-guard.js';
import { ipAllowed } from './ip-allowlist.js';
import { TokenService } from './tokens.js';

export interface AuthService {
  readonly authenticator: CredentialAuthenticator;
  /** What the edge calls: the authenticator behind the failed-authentication guard. */
  readonly edge: Authenticator;
  /** Failed authentications: log, per-source throttle, uniform rejection time. */
  readonly guard: AuthFailureGuard;
  readonly credentials: CredentialStore;
  readonly tokens: TokenService;
  /** The keys that sign decision receipts, published in the same JWKS (src/receipts/). */
  readonly receipts: ReceiptKeys;
  readonly admin: AdminKeyVerifier;
  ipAllowed(cred: ResolvedCredential, ip: string): boolean;
}

export async function startAuth(config: Config, log: Logger, dbs: Databases, box: SecretBox): Promise<AuthService> {
  const credentials = new CredentialStore(dbs);
  await credentials.listen();
  const tokens = await TokenService.load(dbs.live, log, box);
  const receipts = await ReceiptKeys.load(dbs.live, box, log);
  const admin = await loadAdminKey(config, dbs.live, log);
  const authenticator = new CredentialAuthenticator({
    dbs,
    credentials,
    tokens,
    admin,
    clientTenancy: config.clientTenancy,
  });
  const guard = new AuthFailureGuard({
    limit: config.authFailureLimit,
    windowSeconds: config.authFailureWindowSeconds,
    rejectMinMs: config.authRejectMinMs,
    log,
  });
  return {
    authenticator,
    edge: new GuardedAuthenticator(authenticator, guard),
    guard,
    credentials,
    tokens,
    receipts,
    admin,
    ipAllowed: (cred, ip) => ipAllowed(cred.allowlist, ip),
  };
}
